"""Every collective the "ddlscale" backend adds for ZeRO, FSDP and torch's own suite gives what gloo gives on
the same inputs. Run by every rank of an MPI job of 2 or more ranks (PYTHONPATH: the build's runtime/pytorch):

    mpirun -np 3 python3 collectives_match_gloo.py

Each rank holds a ddlscale group (the default) and a gloo group of the same ranks, runs each call on both with
the same inputs, and compares the results exactly: the values are small integers, exact in every type and
every order of combination. Where gloo in torch 1.13 has no such call or type (reduce_scatter, ReduceOp.AVG,
bool, bfloat16), the reference is gloo's all_reduce and the definition: the rank's block of it; the sum
divided by the ranks; bool as NCCL's process group reduces it (SUM a logical or, PRODUCT a logical and); bfloat16
as float32's result, exact for these small integers.
Each check is a unittest test; a failure exits non-zero on the rank that saw it.
"""
import unittest

import torch
import torch.distributed as dist

from rank_unittest import assert_refused, run_on_every_rank

import ddlscale_torch  # noqa: F401  (registers the backend)

OPS = {"SUM": dist.ReduceOp.SUM, "PRODUCT": dist.ReduceOp.PRODUCT, "MIN": dist.ReduceOp.MIN, "MAX": dist.ReduceOp.MAX}
GLOO_TYPES = (torch.float32, torch.float64, torch.float16, torch.int8, torch.uint8, torch.int32, torch.int64)
GLOO = None


def values(rank, count, dtype, seed=0):
    """Rank `rank`'s small integers in [-2, 2] (or [0, 2] unsigned; 0 or 1 for bool): products over 8 ranks fit int8."""
    generator = torch.Generator().manual_seed(seed * 1009 + rank)
    if dtype == torch.bool:
        return torch.randint(0, 2, (count,), generator=generator).bool()
    low = 0 if dtype == torch.uint8 else -2
    return torch.randint(low, 3, (count,), generator=generator).to(dtype)


def both(call, make):
    """`call` on a fresh `make()` over ddlscale (the default group) and over gloo: the two tensors after it."""
    mine, theirs = make(), make()
    call(mine, None)
    call(theirs, GLOO)
    return mine, theirs


class Allreduce(unittest.TestCase):
    def test_every_type_and_operator_matches_gloo(self):
        rank = dist.get_rank()
        for dtype in GLOO_TYPES:
            for name, op in OPS.items():
                mine, theirs = both(lambda t, g: dist.all_reduce(t, op=op, group=g), lambda: values(rank, 1001, dtype))
                self.assertTrue(torch.equal(mine, theirs), f"{dtype} {name}")

    def test_bfloat16_gives_float32s_result(self):
        rank = dist.get_rank()
        for name, op in OPS.items():
            mine = values(rank, 1001, torch.bfloat16)
            dist.all_reduce(mine, op=op)
            reference = values(rank, 1001, torch.bfloat16).float()
            dist.all_reduce(reference, op=op, group=GLOO)
            self.assertTrue(torch.equal(mine, reference.bfloat16()), name)

    def test_bools_reduce_as_nccls_process_group_reduces_them(self):
        rank = dist.get_rank()
        for name, op, reference_op in (("SUM", dist.ReduceOp.SUM, dist.ReduceOp.MAX), ("PRODUCT", dist.ReduceOp.PRODUCT, dist.ReduceOp.MIN),
                                       ("MIN", dist.ReduceOp.MIN, dist.ReduceOp.MIN), ("MAX", dist.ReduceOp.MAX, dist.ReduceOp.MAX)):
            mine = values(rank, 333, torch.bool)
            dist.all_reduce(mine, op=op)
            reference = values(rank, 333, torch.bool).to(torch.uint8)
            dist.all_reduce(reference, op=reference_op, group=GLOO)
            self.assertTrue(torch.equal(mine, reference.bool()), name)

    def test_complex_sums_match_gloo(self):
        rank = dist.get_rank()
        make = lambda: torch.complex(values(rank, 77, torch.float32), values(rank, 77, torch.float32, seed=1))
        mine, theirs = both(lambda t, g: dist.all_reduce(t, group=g), make)
        self.assertTrue(torch.equal(mine, theirs))

    def test_an_average_is_the_sum_divided_by_the_ranks(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for dtype in (torch.float32, torch.float64, torch.int32, torch.int64):
            mine = values(rank, 999, dtype)
            dist.all_reduce(mine, op=dist.ReduceOp.AVG)
            total = values(rank, 999, dtype)
            dist.all_reduce(total, group=GLOO)
            expected = total / ranks if dtype.is_floating_point else torch.div(total, ranks, rounding_mode="trunc")
            self.assertTrue(torch.equal(mine, expected.to(dtype)), f"{dtype}")


class Reduce(unittest.TestCase):
    def test_each_root_gets_gloos_result_and_the_others_keep_their_tensors(self):
        rank = dist.get_rank()
        for root in range(dist.get_world_size()):
            for name, op in (("SUM", dist.ReduceOp.SUM), ("MAX", dist.ReduceOp.MAX)):
                mine, theirs = both(lambda t, g: dist.reduce(t, root, op=op, group=g), lambda: values(rank, 513, torch.int32))
                if rank == root:
                    self.assertTrue(torch.equal(mine, theirs), f"root {root} {name}")
                else:
                    self.assertTrue(torch.equal(mine, values(rank, 513, torch.int32)), f"rank {rank}, root {root}")


class ReduceScatter(unittest.TestCase):
    def expected_block(self, inputs, op):
        """This rank's block of gloo's allreduce of every rank's inputs laid end to end."""
        whole = torch.cat([t.reshape(-1) for t in inputs])
        dist.all_reduce(whole, op=op, group=GLOO)
        return whole.chunk(dist.get_world_size())[dist.get_rank()].view(inputs[0].shape)

    def test_the_list_form_leaves_each_rank_its_block(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for dtype in (torch.float32, torch.int64, torch.float16):
            for name, op in OPS.items():
                inputs = [values(rank, 6 * 5, dtype, seed=r).view(6, 5) for r in range(ranks)]
                output = torch.empty(6, 5, dtype=dtype)
                dist.reduce_scatter(output, inputs, op=op)
                self.assertTrue(torch.equal(output, self.expected_block(inputs, op)), f"{dtype} {name}")

    def test_the_tensor_form_leaves_each_rank_its_block(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        whole = values(rank, 7 * ranks, torch.float32)
        output = torch.empty(7)
        dist.reduce_scatter_tensor(output, whole, op=dist.ReduceOp.MIN)
        self.assertTrue(torch.equal(output, self.expected_block(list(whole.chunk(ranks)), dist.ReduceOp.MIN)))
        self.assertTrue(torch.equal(whole, values(rank, 7 * ranks, torch.float32)), "the input is left as it was")


class Gathering(unittest.TestCase):
    def test_all_gather_into_tensor_matches_gloo(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        mine = torch.empty(ranks * 9, dtype=torch.int8)
        dist.all_gather_into_tensor(mine, values(rank, 9, torch.int8))
        theirs = [torch.empty(9, dtype=torch.int8) for _ in range(ranks)]
        dist.all_gather(theirs, values(rank, 9, torch.int8), group=GLOO)
        self.assertTrue(torch.equal(mine, torch.cat(theirs)))

    def test_all_gather_coalesced_matches_gloo(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        # torch's all_gather_coalesced takes inputs of one type; their shapes differ.
        inputs = [values(rank, 5, torch.float64), values(rank, 3, torch.float64, seed=1).view(3, 1), values(rank, 1, torch.float64, seed=2)]
        outputs = {}
        for key, group in (("ddlscale", None), ("gloo", GLOO)):
            outputs[key] = [[torch.empty_like(t) for t in inputs] for _ in range(ranks)]
            dist.all_gather_coalesced(outputs[key], inputs, group=group)
        for r in range(ranks):
            for mine, theirs in zip(outputs["ddlscale"][r], outputs["gloo"][r]):
                self.assertTrue(torch.equal(mine, theirs), f"rank {r}'s {mine.dtype}")

    def test_gather_to_each_root_matches_gloo(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for root in range(ranks):
            lists = {}
            for key, group in (("ddlscale", None), ("gloo", GLOO)):
                lists[key] = [torch.empty(4, 3, dtype=torch.float16) for _ in range(ranks)] if rank == root else None
                dist.gather(values(rank, 12, torch.float16, seed=root).view(4, 3), lists[key], dst=root, group=group)
            if rank == root:
                for mine, theirs in zip(lists["ddlscale"], lists["gloo"]):
                    self.assertTrue(torch.equal(mine, theirs), f"root {root}")

    def test_scatter_from_each_root_matches_gloo(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for root in range(ranks):
            pieces = [values(r, 5, torch.int64, seed=root) for r in range(ranks)] if rank == root else None
            mine, theirs = torch.empty(5, dtype=torch.int64), torch.empty(5, dtype=torch.int64)
            dist.scatter(mine, pieces, src=root)
            dist.scatter(theirs, pieces, src=root, group=GLOO)
            self.assertTrue(torch.equal(mine, theirs), f"root {root}")
            self.assertTrue(torch.equal(mine, values(rank, 5, torch.int64, seed=root)), f"root {root}")


class AllToAll(unittest.TestCase):
    def test_all_to_all_single_matches_gloo_in_equal_and_uneven_splits(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        # Rank r sends q + r + 1 rows to rank q, and so receives r + q + 1 rows from rank q.
        uneven_in = [q + rank + 1 for q in range(ranks)]
        uneven_out = [rank + q + 1 for q in range(ranks)]
        for label, rows_in, rows_out, splits_in, splits_out in (
                ("equal", 2 * ranks, 2 * ranks, None, None),
                ("uneven", sum(uneven_in), sum(uneven_out), uneven_in, uneven_out)):
            data = values(rank, rows_in * 3, torch.int64, seed=7).view(rows_in, 3) + 10 * rank
            outputs = []
            for group in (None, GLOO):
                output = torch.empty(rows_out, 3, dtype=torch.int64)
                dist.all_to_all_single(output, data, splits_out, splits_in, group=group)
                outputs.append(output)
            self.assertTrue(torch.equal(outputs[0], outputs[1]), label)

    def test_all_to_all_lists_put_each_ranks_tensor_in_its_place(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        inputs = [torch.full((q + 1, 2), float(100 * rank + q)) for q in range(ranks)]
        outputs = [torch.empty(rank + 1, 2) for _ in range(ranks)]
        dist.all_to_all(outputs, inputs)
        for q in range(ranks):
            self.assertTrue(torch.equal(outputs[q], torch.full((rank + 1, 2), float(100 * q + rank))), f"from rank {q}")


class PointToPoint(unittest.TestCase):
    def test_send_and_recv_match_by_peer_and_tag(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        following, preceding = (rank + 1) % ranks, (rank - 1) % ranks
        # Every rank sends tag 3, then tag 0, to the following rank, and receives them the other way round.
        works = [dist.isend(torch.full((5,), 30.0 + rank), following, tag=3),
                 dist.isend(torch.full((4,), float(rank)), following, tag=0)]
        zero, three = torch.empty(4), torch.empty(5)
        dist.recv(zero, preceding, tag=0)
        work = dist.irecv(three, preceding, tag=3)
        work.wait()
        for each in works:
            each.wait()
        self.assertTrue(torch.equal(zero, torch.full((4,), float(preceding))))
        self.assertTrue(torch.equal(three, torch.full((5,), 30.0 + preceding)))

    def test_recv_from_any_rank_returns_the_sender_as_gloo_does(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        for group in (None, GLOO):
            if rank != 0:
                dist.send(torch.full((3,), 10.0 * rank), 0, group=group, tag=7)
                dist.send(torch.full((3,), 10.0 * rank + 1), 0, group=group, tag=7)
                continue
            seen = {}
            for _ in range(2 * (ranks - 1)):
                message = torch.empty(3)
                sender = dist.recv(message, tag=7, group=group)  # src=None: from any rank
                self.assertTrue(torch.equal(message, torch.full((3,), message[0].item())), "one message, whole")
                seen.setdefault(sender, []).append(message[0].item())
            self.assertEqual(seen, {r: [10.0 * r, 10.0 * r + 1] for r in range(1, ranks)}, "each sender's, in its order")
        # irecv(src=None): the work names the sender once waited for.
        if rank == 1:
            dist.send(torch.full((2,), 5.0), 0, tag=8)
        elif rank == 0:
            message = torch.empty(2)
            work = dist.irecv(message, tag=8)
            work.wait()
            self.assertEqual(work._source_rank(), 1)
            self.assertTrue(torch.equal(message, torch.full((2,), 5.0)))

    def test_a_strided_tensor_is_received_in_place(self):
        rank, ranks = dist.get_rank(), dist.get_world_size()
        if rank == 0:
            for peer in range(1, ranks):
                dist.send(torch.arange(6, dtype=torch.int32) + peer, peer)
        else:
            whole = torch.zeros(6, 2, dtype=torch.int32)
            dist.recv(whole[:, 0], 0)
            self.assertTrue(torch.equal(whole[:, 0], torch.arange(6, dtype=torch.int32) + rank))
            self.assertTrue(torch.equal(whole[:, 1], torch.zeros(6, dtype=torch.int32)))


class Refusals(unittest.TestCase):
    def refused(self, call, *words):
        assert_refused(self, call, *words)

    def test_what_cannot_be_reduced_raises_naming_it_and_the_group_goes_on(self):
        self.refused(lambda: dist.all_reduce(torch.ones(4, dtype=torch.int16)), "torch.int16", "int32")
        self.refused(lambda: dist.all_reduce(torch.ones(4, dtype=torch.int32), op=dist.ReduceOp.BAND), "BAND", "MAX")
        self.refused(lambda: dist.all_reduce(torch.ones(4, dtype=torch.bool), op=dist.ReduceOp.AVG), "torch.bool", "AVG")
        self.refused(lambda: dist.all_reduce(torch.ones(4, dtype=torch.complex64), op=dist.ReduceOp.MAX), "complex")
        self.refused(lambda: dist.reduce_scatter(torch.empty(2), [torch.ones(3)] * dist.get_world_size()), "shape")
        tensor = torch.ones(4, dtype=torch.int32)
        dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
        self.assertTrue(torch.equal(tensor, torch.ones(4, dtype=torch.int32)))


def make_gloo_group():
    global GLOO
    GLOO = dist.new_group(backend="gloo")


if __name__ == "__main__":
    run_on_every_rank(make_gloo_group)
