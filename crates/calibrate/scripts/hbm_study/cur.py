"""The engine's current (fitted) HBM parameters, in sim.py's terms (h100.toml after the Rust fit)."""
from sim import BASE
CUR=dict(BASE)
CUR.update(hash=True, TP=1024, lat=595+18, dtma=18.0, dfar=183, J=47, ptail=0.0677, tail_lo=7, tail_hi=501,
           R=97.49, Rb=123.0, C=44491.0)
