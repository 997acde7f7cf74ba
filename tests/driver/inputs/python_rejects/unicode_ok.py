# coding: utf-8
import torch

import helion
import helion.language as hl


@helion.kernel()
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    résultat = torch.empty_like(x)  # ‮  fine in a comment
    note = 'no break ‮ in a string'
    for tile in hl.tile(x.size(0)):
        résultat[tile] = x[tile] + y[tile]
    return résultat
