"""Row hits across requests (F4 with linear=True, dhit): can they give the maps'
neighbour effect while the isolated copies keep F3's values? python3 neighbour2.py"""
from cur import CUR
import bank, fit2

print('F3 (engine values), no bank state:')
l, r, e = fit2.loss(dict(CUR), 512, True, True)
print('   ' + ' '.join(f'{k.split(".")[1][:4]}{k.split(".")[-1]}:{v:+.1f}' for k, v in e.items()))
for rs, dhit, tclose in ((20, 100, 5000), (20, 150, 3000), (20, 150, 6000), (24, 150, 6000)):
    p = dict(CUR)
    p.update(bank=True, linear=True, NB=64, gshift=10, rshift=rs, dconf=0.0, dmiss=0.0, dhit=float(dhit),
             tB=0.0, tRC=0.0, tclose=float(tclose))
    l, r, e = fit2.loss(p, 512, True, True)
    print(f'1 KiB granules to 64 banks in turn; one row per bank per {1 << (rs - 20)} MiB region '
          f'(row = addr >> {rs}); a hit on a row an earlier copy opened saves {dhit}; rows close '
          f'after {tclose} idle cycles:')
    print('   ' + ' '.join(f'{k.split(".")[1][:4]}{k.split(".")[-1]}:{v:+.1f}' for k, v in e.items()), flush=True)
