# hl.register_tunable: the fragment's default unless --arg names the
# tunable (here split_k=4 of PowerOfTwoFragment(1, 8, 2), and an EnumFragment
# left at its first choice); cdiv / next_power_of_2 fold on the static n
# (block 64), and next_power_of_2 of the symbolic m is a block Tessera
# chooses (the default, 128). hl.barrier after the loop is accepted.
# RUN: --passes "" --emit=ir --arg x=f32[m,256] --arg split_k=4
import torch
import helion
from helion.autotuner import PowerOfTwoFragment
from helion.autotuner.config_fragment import EnumFragment
import helion.language as hl


@helion.kernel()
def tunables(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 8, 2))
    scale = hl.register_tunable("scale", EnumFragment(choices=(3, 5)))
    m_block = helion.next_power_of_2(helion.cdiv(m, split_k))
    n_block = helion.next_power_of_2(helion.cdiv(n, split_k))
    out = torch.empty_like(x)
    for tm, tn in hl.tile([m, n], block_size=[m_block, n_block]):
        out[tm, tn] = x[tm, tn] * scale
    hl.barrier()
    return out
