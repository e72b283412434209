"""What torch.distributed's callers get from the "ddlscale" backend, beyond DDP's training (ddp_matches_gloo.py).
Run by every rank of an MPI job of 2 or more ranks (PYTHONPATH: the build's runtime/pytorch):

    mpirun -np 3 python3 backend_semantics.py [DDLSIM]

- allreduce sums float32, float64, float16 and bfloat16, each addition rounded once to the type (the other
  types and operators: collectives_match_gloo.py); in place, on
  a strided view, and as async work whose wait() and future both give the result;
- broadcast and all-gather move any element type bit for bit, odd byte counts included, from any root;
- a group of some of the ranks runs its collectives while the others do not take part;
- what the backend cannot do raises a RuntimeError that says why, on every rank, before anything runs, and
  the group goes on working after it;
- the algorithm is chosen by name, by DDLSCALE_ALGORITHM, and by a tuning table (made with DDLSIM, if given).
Each check is a unittest test; a failure exits non-zero on the rank that saw it.
"""
import os
import subprocess
import sys
import tempfile
import unittest
import warnings

import torch
import torch.distributed as dist

from rank_unittest import assert_refused, run_on_every_rank

import ddlscale_torch

DDLSIM = sys.argv.pop(1) if len(sys.argv) > 1 else None


def rank_values(rank, count, dtype, seed=0):
    """Rank `rank`'s values: different on every rank, of moderate size (their sums are exact in float64)."""
    return torch.randn(count, generator=torch.Generator().manual_seed(seed + rank), dtype=torch.float64).to(dtype)


class Allreduce(unittest.TestCase):
    def test_each_type_sums_like_float64_rounded_per_addition(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            tensor = rank_values(rank, 1001, dtype)
            dist.all_reduce(tensor)
            if ranks == 2:  # one addition: the float64 sum of the two, rounded once
                expected = (rank_values(0, 1001, dtype).double() + rank_values(1, 1001, dtype).double()).to(dtype)
                self.assertTrue(torch.equal(tensor, expected), f"{dtype}")
            else:
                expected = sum(rank_values(r, 1001, dtype).double() for r in range(ranks))
                epsilon = torch.finfo(dtype).eps
                self.assertLessEqual((tensor.double() - expected).abs().max().item(),
                                     ranks * epsilon * expected.abs().max().item(), f"{dtype}")

    def test_a_strided_view_is_reduced_and_nothing_around_it_is_touched(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        whole = torch.full((6, 8), float(rank))
        view = whole[:, ::2]
        self.assertFalse(view.is_contiguous())
        dist.all_reduce(view)
        self.assertTrue(torch.equal(whole[:, ::2], torch.full((6, 4), float(sum(range(ranks))))))
        self.assertTrue(torch.equal(whole[:, 1::2], torch.full((6, 4), float(rank))))

    def test_async_work_and_its_future_give_the_result(self):
        ranks = dist.get_world_size()
        tensor = torch.ones(1 << 16)
        work = dist.all_reduce(tensor, async_op=True)
        future = work.get_future()
        self.assertTrue(work.wait())
        self.assertTrue(work.is_completed())
        self.assertTrue(torch.equal(future.wait()[0], torch.full((1 << 16,), float(ranks))))
        self.assertTrue(torch.equal(tensor, torch.full((1 << 16,), float(ranks))))


class DataMovement(unittest.TestCase):
    def test_broadcast_moves_every_type_bit_for_bit_from_any_root(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for root in range(ranks):
            for dtype, count in ((torch.int64, 5), (torch.bool, 7), (torch.uint8, 3), (torch.float32, 9)):
                source = (torch.arange(count) * 7 + 3 + root).to(dtype)
                tensor = source.clone() if rank == root else torch.zeros(count, dtype=dtype)
                dist.broadcast(tensor, root)
                self.assertTrue(torch.equal(tensor, source), f"{dtype} from {root}")
        nan_payload = torch.tensor([0x7FC00001, -1, 0x7F800001], dtype=torch.int32).view(torch.float32)
        tensor = nan_payload.clone() if rank == 0 else torch.zeros(3)
        dist.broadcast(tensor, 0)
        self.assertTrue(torch.equal(tensor.view(torch.int32), nan_payload.view(torch.int32)), "NaN payloads")

    def test_all_gather_moves_every_type_in_rank_order(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for dtype, shape in ((torch.uint8, (3,)), (torch.float64, (2, 3)), (torch.int16, (5,))):
            mine = (torch.arange(torch.Size(shape).numel()).reshape(shape) + 10 * rank).to(dtype)
            gathered = [torch.zeros(shape, dtype=dtype) for _ in range(ranks)]
            dist.all_gather(gathered, mine)
            for r in range(ranks):
                expected = (torch.arange(torch.Size(shape).numel()).reshape(shape) + 10 * r).to(dtype)
                self.assertTrue(torch.equal(gathered[r], expected), f"{dtype}, rank {r}'s block")

    def test_all_gather_into_one_tensor(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        output = torch.zeros(ranks * 4)
        dist._all_gather_base(output, torch.full((4,), float(rank)))
        self.assertTrue(torch.equal(output, torch.arange(ranks).repeat_interleave(4).float()))


class Groups(unittest.TestCase):
    def test_a_group_of_two_ranks_runs_without_the_others(self):
        rank = dist.get_rank()
        pair = dist.new_group([0, 1], backend="ddlscale")
        if rank < 2:
            tensor = torch.full((10,), float(rank + 1))
            dist.all_reduce(tensor, group=pair)
            self.assertTrue(torch.equal(tensor, torch.full((10,), 3.0)))
        dist.barrier()


class Refusals(unittest.TestCase):
    def refused(self, call, *words):
        assert_refused(self, call, *words)

    def test_what_the_backend_cannot_do_raises_and_the_group_goes_on(self):
        self.refused(lambda: dist.all_reduce(torch.ones(4, dtype=torch.int16)), "int16", "float32")
        self.refused(lambda: dist.all_reduce(torch.ones(4), op=dist.ReduceOp.BXOR), "BXOR", "SUM")
        with warnings.catch_warnings():  # that all_reduce_multigpu is to be deprecated
            warnings.simplefilter("ignore", UserWarning)
            self.refused(lambda: dist.all_reduce_multigpu([torch.ones(4), torch.ones(4)]), "one tensor")
        group = dist.distributed_c10d._get_default_group()
        self.refused(lambda: group.set_algorithm("allreduce", "rign"), "rign")
        self.refused(lambda: group.set_algorithm("allreduce", "ddl", "dims=7x7"), "dims")
        self.refused(lambda: group.set_algorithm("reduce", "ring"), "reduce")
        tensor = torch.ones(4)
        dist.all_reduce(tensor)
        self.assertTrue(torch.equal(tensor, torch.full((4,), float(dist.get_world_size()))))

    def test_a_bad_algorithm_in_the_environment_fails_the_new_group(self):
        os.environ[ddlscale_torch.ALGORITHM_VARIABLE] = "rign"
        try:
            self.refused(lambda: dist.new_group(backend="ddlscale"), "rign")
        finally:
            del os.environ[ddlscale_torch.ALGORITHM_VARIABLE]
        both = {ddlscale_torch.ALGORITHM_VARIABLE: "ring", ddlscale_torch.TUNING_VARIABLE: "table.json"}
        self.refused(lambda: ddlscale_torch.choose_from_environment(None, both), "both")


class Bootstrap(unittest.TestCase):
    def test_mpirun_means_mpi_and_any_other_launcher_tcp_unless_told(self):
        self.assertTrue(ddlscale_torch.launched_by_mpi({"OMPI_COMM_WORLD_SIZE": "2"}))
        self.assertTrue(ddlscale_torch.launched_by_mpi({"PMI_SIZE": "2"}))
        self.assertFalse(ddlscale_torch.launched_by_mpi({"RANK": "0", "WORLD_SIZE": "2"}))
        self.assertFalse(ddlscale_torch.launched_by_mpi({"OMPI_COMM_WORLD_SIZE": "2", "DDLSCALE_BOOTSTRAP": "tcp"}))
        self.assertTrue(ddlscale_torch.launched_by_mpi({"DDLSCALE_BOOTSTRAP": "mpi"}))
        with self.assertRaisesRegex(ValueError, "DDLSCALE_BOOTSTRAP='ssh': give mpi or tcp"):
            ddlscale_torch.launched_by_mpi({"DDLSCALE_BOOTSTRAP": "ssh"})


class Choice(unittest.TestCase):
    def test_the_environment_chooses_the_new_groups_allreduce(self):
        os.environ[ddlscale_torch.ALGORITHM_VARIABLE] = "halving-doubling"
        try:
            group = dist.new_group(backend="ddlscale")
        finally:
            del os.environ[ddlscale_torch.ALGORITHM_VARIABLE]
        self.assertEqual(group.describe("allreduce", 1 << 20), "halving-doubling")
        tensor = torch.ones(100)
        dist.all_reduce(tensor, group=group)
        self.assertTrue(torch.equal(tensor, torch.full((100,), float(dist.get_world_size()))))

    @unittest.skipUnless(DDLSIM, "no ddlsim given to tune with")
    def test_a_tuning_table_chooses_per_size(self):
        ranks = dist.get_world_size()
        table = os.path.join(tempfile.gettempdir(), f"ddlscale-torch-tuning-{os.getppid()}.json")
        made = torch.zeros(1)
        if dist.get_rank() == 0:
            # As one process: a ddlsim that finds itself a rank of an MPI job would split a sweep over it.
            alone = {name: value for name, value in os.environ.items() if not name.startswith(("OMPI_", "PMI", "PMIX"))}
            made[0] = subprocess.run([DDLSIM, "tune", "--topology", "flat-h200-edr", "--gpus", str(ranks), "-b", "4K",
                                      "-e", "64M", "-f", "16", "--json", "--out", table], env=alone,
                                     stdout=subprocess.DEVNULL).returncode == 0
        dist.broadcast(made, 0)
        self.assertEqual(made.item(), 1.0, "ddlsim tune failed on rank 0")
        group = dist.distributed_c10d._get_default_group()
        group.set_tuning("allreduce", table)
        chosen = {size: group.describe("allreduce", size) for size in (4096, 1 << 26)}
        for size in chosen:
            tensor = torch.ones(size // 4)
            dist.all_reduce(tensor)
            self.assertTrue(torch.equal(tensor, torch.full((size // 4,), float(ranks))), chosen[size])
        group.set_algorithm("allreduce", "ring")
        dist.barrier()
        if dist.get_rank() == 0:
            os.remove(table)
            print(f"tuning chose {chosen}", flush=True)


if __name__ == "__main__":
    run_on_every_rank()
