"""Ranks that disagree on a collective are told so, on every rank, before any data moves, and the group goes
on working: run by each of 2 ranks with the agreement check on (DDLSCALE_CHECK_AGREEMENT=1; a broadcast is
checked always), under mpirun or launched as torchrun launches (over TCP):

    DDLSCALE_CHECK_AGREEMENT=1 mpirun -np 2 python3 ranks_disagree.py
    DDLSCALE_CHECK_AGREEMENT=1 launch_like_torchrun.py 2 ranks_disagree.py

Unchecked, a broadcast from two roots left every later allreduce of the group wrong on both ranks, float16
against bfloat16 summed into garbage, and a count that differs ended the job through Open MPI's
MPI_ERR_TRUNCATE with no word of ours. Each case: a RuntimeError on both ranks naming rank 0's call and rank
1's, the tensors as they were, then an exact allreduce on the same group.
"""
import datetime
import os
import sys
import unittest

import torch
import torch.distributed as dist

import ddlscale_torch  # noqa: F401  (registers the backend)

from rank_unittest import assert_refused


def rank():
    return dist.get_rank()


class RanksThatDisagree(unittest.TestCase):
    def setUp(self):
        self.assertEqual(os.environ.get("DDLSCALE_CHECK_AGREEMENT"), "1", "run with the agreement check on")

    def tearDown(self):
        # The group still sums exactly after each refusal.
        values = torch.arange(1000, dtype=torch.float32) * (rank() + 1)
        dist.all_reduce(values)
        self.assertTrue(torch.equal(values, torch.arange(1000, dtype=torch.float32) * 3))

    def refused_unchanged(self, tensor, call, *words):
        before = tensor.clone()
        assert_refused(self, call, "the ranks disagree on this collective", *words)
        self.assertTrue(torch.equal(tensor, before), "nothing moved")

    def test_on_the_root_of_a_broadcast(self):
        tensor = torch.full((16,), float(rank() + 1))
        # The backend broadcasts a tensor's bytes in the widest words they divide into: 64 bytes as 8 float64.
        self.refused_unchanged(tensor, lambda: dist.broadcast(tensor, src=rank()),
                               "rank 0 calls broadcast of 8 float64 from rank 0", "rank 1 broadcast of 8 float64 from rank 1")

    def test_on_the_element_type(self):
        tensor = torch.ones(64, dtype=torch.float16 if rank() == 0 else torch.bfloat16)
        self.refused_unchanged(tensor, lambda: dist.all_reduce(tensor), "rank 0 calls allreduce (sum) of 64 float16",
                               "rank 1 allreduce (sum) of 64 bfloat16")

    def test_on_the_count(self):
        tensor = torch.ones(100 - rank())
        self.refused_unchanged(tensor, lambda: dist.all_reduce(tensor), "rank 0 calls allreduce (sum) of 100 float32",
                               "rank 1 allreduce (sum) of 99 float32")

    def test_on_the_reduction(self):
        tensor = torch.ones(10, dtype=torch.int32)
        op = dist.ReduceOp.SUM if rank() == 0 else dist.ReduceOp.MAX
        self.refused_unchanged(tensor, lambda: dist.all_reduce(tensor, op=op), "rank 0 calls allreduce (sum) of 10 int32",
                               "rank 1 allreduce (max) of 10 int32")


if __name__ == "__main__":
    over_tcp = "MASTER_ADDR" in os.environ  # launched as torchrun launches
    dist.init_process_group("ddlscale", init_method="env://" if over_tcp else "ddlscale://",
                            timeout=datetime.timedelta(seconds=30))
    if dist.get_world_size() != 2:
        sys.exit("run on 2 ranks")
    result = unittest.main(argv=[sys.argv[0]], exit=False, verbosity=2 if rank() == 0 else 0).result
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0 if result.wasSuccessful() else 1)
