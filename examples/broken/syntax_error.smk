# Broken on purpose: a memory operand without its closing bracket.
kernel syntax_error
launch cta_threads=64 regs=32 smem=0 grid=1
buffer X global size=256

role main warps=0..1
  LDG.E R4, X[(warp * 32 + lane) * 4
  EXIT
