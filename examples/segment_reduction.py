"""
Segment sums of sorted segment ids by a scan and one atomic per run
===================================================================

out[s, :] = sum of data[i, :] over the rows i with segment_ids[i] == s, for
ids sorted so that each segment is a run of rows (Helion's
segment_reduction pattern). Within a block of rows, an associative scan
whose combine function restarts at every change of id leaves each run's sum
in its last row; only those rows (and the block's last row, whose run may
continue in the next block) are added into the output by the atomic, the
others add zero. The id vector is read three ways: as the scan's second
member, shifted by one row to find the ends of runs, and row by row as the
atomic's scatter rows, which the TPU reads from SMEM (scalar prefetch):
the array is passed twice, once to SMEM for the scatter, once to VMEM for
the vector reads (the `tpu-index-refs-twice` lowering pass,
backends/pallas_tpu/passes/smem_copies.h).
"""

from __future__ import annotations

import torch

import helion
import helion.language as hl


def run_sum(left_sum: torch.Tensor, left_id: torch.Tensor,
            right_sum: torch.Tensor,
            right_id: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The running sum restarts where the segment id changes."""
    same = left_id == right_id
    return torch.where(same, right_sum + left_sum, right_sum), right_id


@helion.kernel()
def segment_reduction(data: torch.Tensor, segment_ids: torch.Tensor,
                      num_segments: hl.constexpr = 48) -> torch.Tensor:
    """data: [n, f]; segment_ids: [n] sorted integers in [0, num_segments)."""
    n, f = data.size()
    out = torch.zeros([num_segments, f], dtype=torch.float32,
                      device=data.device)
    for tile_n, tile_f in hl.tile([n, f]):
        rows = data[tile_n, tile_f].to(torch.float32)
        ids = segment_ids[tile_n]
        following = hl.load(segment_ids, [tile_n.index + 1],
                            extra_mask=tile_n.index + 1 < n)
        ids_by_row = ids.to(torch.float32).unsqueeze(1).expand_as(rows)
        sums, _ = hl.associative_scan(run_sum, (rows, ids_by_row), dim=0)
        run_ends = ((ids != following) | (tile_n.index == n - 1)
                    | (tile_n.index % tile_n.block_size
                       == tile_n.block_size - 1))
        hl.atomic_add(out, [ids, tile_f],
                      torch.where(run_ends.unsqueeze(1), sums, 0.0))
    return out


def check(n: int, f: int) -> None:
    ids = torch.randint(0, 40, [n], device="cuda").sort()[0]
    data = torch.randn([n, f], device="cuda", dtype=torch.float32)
    expected = torch.zeros([48, f], device="cuda").index_add_(0, ids, data)
    torch.testing.assert_close(segment_reduction(data, ids), expected,
                               rtol=1e-4, atol=1e-4)


def main() -> None:
    check(2000, 128)


if __name__ == "__main__":
    main()
