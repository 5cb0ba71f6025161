# Broken on purpose: loads from a buffer that is never declared.
kernel undefined_buffer
launch cta_threads=64 regs=32 smem=0 grid=1
buffer X global size=256

role main warps=0..1
  LDG.E R4, X[(warp * 32 + lane) * 4]
  LDG.E R5, Xs[(warp * 32 + lane) * 4]
  FADD R4, R4, R5
  STG.E X[(warp * 32 + lane) * 4], R4
  EXIT
