# A lane select reads its row block whole along the lanes: a vocabulary of
# 2M f32 (128 rows: 977 MiB a block) does not fit VMEM, which the VMEM
# check reports at the grid loop, naming the block and why it is whole.
# RUN: --emit=code -o - --arg big=f32[256,2000000] --arg idx=i32[256]
import torch
import helion
import helion.language as hl


@helion.kernel()
def too_wide(big, idx):
    n, v = big.size()
    out = torch.empty([n], dtype=big.dtype, device=big.device)
    for tile_n in hl.tile(n):
        out[tile_n] = hl.load(big, [tile_n.index, idx[tile_n]])
    return out
