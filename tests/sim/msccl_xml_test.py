#!/usr/bin/python3
"""What `ddlsim schedule --msccl-xml` writes is an allreduce the MSCCL runtime would run correctly.

Each export is read back by an interpreter written from MSCCL's rules, not from the exporter: its structure is
checked against the XML algorithm format (msccl-tools' "old format"), then it is executed symbolically under
several orders the runtime could pick. Under every order it must finish, leave no message unreceived, and leave
every chunk of every GPU holding exactly one contribution of every GPU; and no two steps of a GPU may touch a chunk
unordered, one of them writing it. Doctored exports show that each of these checks fails when it should.

Usage: msccl_xml_test.py DDLSIM [unittest options]
"""
import collections
import os
import random
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ElementTree

DDLSIM = sys.argv.pop(1)


class MscclError(Exception):
    """The document breaks the format or does not compute an allreduce."""


class StructureError(MscclError):
    """The document breaks a rule of the format."""


class Deadlock(MscclError):
    """Some steps have not run and none can."""


class CountMismatch(MscclError):
    """A receive's cnt differs from that of the send it pairs with."""


class WrongResult(MscclError):
    """A chunk ends without exactly one contribution of every GPU, or a message is never received."""


class Race(MscclError):
    """Two steps of a GPU touch a common chunk, one of them writing it, and nothing orders them."""


def integer(element, name):
    value = element.get(name)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise StructureError(f"<{element.tag}> {name}={value!r} is not an integer") from None


def require(condition, message):
    if not condition:
        raise StructureError(message)


def check_structure(root):
    """The format's rules. The root is an in-place allreduce whose ngpus counts its <gpu>s, whose nchunksperloop is
    every GPU's i_chunks and o_chunks, and whose nchannels exceeds every chan. GPU ids run 0..P-1, each GPU's tb ids
    0..T-1 and each tb's step s 0..K-1, in document order. A tb with send=-1 has no "s" step, one with recv=-1 no
    "r" or "rrc"; no tb talks to its own GPU. The tbs of a GPU are sorted by (send, recv, chan), strictly, and no
    two send to, or receive from, the same peer on the same channel (a FIFO would have two ends). Every chunk range
    a step uses lies in [0, nchunksperloop) of buffer "i"; a nop moves cnt 0. depid/deps name an existing step of
    another tb of the same GPU, or are both -1; hasdep="1" is on exactly the steps some step names."""
    require(root.tag == "algo", f"the root is <{root.tag}>, not <algo>")
    require(root.get("coll") == "allreduce", f"coll={root.get('coll')!r}, not 'allreduce'")
    require(root.get("inplace") == "1", f"inplace={root.get('inplace')!r}, not '1'")
    gpus = root.findall("gpu")
    require(integer(root, "ngpus") == len(gpus), f"ngpus={root.get('ngpus')} but {len(gpus)} <gpu>s")
    chunks, channels = integer(root, "nchunksperloop"), integer(root, "nchannels")
    require(chunks >= 1, f"nchunksperloop={chunks}")
    for g, gpu in enumerate(gpus):
        require(integer(gpu, "id") == g, f"<gpu> number {g} has id {gpu.get('id')}")
        for name in ("i_chunks", "o_chunks"):
            require(integer(gpu, name) == chunks, f"gpu {g}: {name}={gpu.get(name)}, nchunksperloop={chunks}")
        tbs = gpu.findall("tb")
        keys = [(integer(tb, "send"), integer(tb, "recv"), integer(tb, "chan")) for tb in tbs]
        require(keys == sorted(set(keys)), f"gpu {g}: tbs not strictly sorted by (send, recv, chan): {keys}")
        for end, name in ((0, "send"), (1, "recv")):
            used = [(key[end], key[2]) for key in keys if key[end] != -1]
            require(len(used) == len(set(used)), f"gpu {g}: two tbs {name} on one (peer, chan): {used}")
        named, flagged = set(), set()
        for t, (tb, (send, recv, chan)) in enumerate(zip(tbs, keys)):
            where = f"gpu {g} tb {t}"
            require(integer(tb, "id") == t, f"gpu {g}: <tb> number {t} has id {tb.get('id')}")
            require(g not in (send, recv), f"{where} talks to its own gpu (send={send}, recv={recv})")
            require(0 <= chan < channels, f"{where}: chan={chan} but nchannels={channels}")
            for s, step in enumerate(tb.findall("step")):
                at, kind, cnt = f"{where} step {s}", step.get("type"), integer(step, "cnt")
                require(integer(step, "s") == s, f"{where}: <step> number {s} has s={step.get('s')}")
                require(kind in ("s", "r", "rrc", "nop"), f"{at}: type={kind!r}")
                require(kind != "s" or send != -1, f"{at} sends but its tb has send=-1")
                require(kind not in ("r", "rrc") or recv != -1, f"{at} receives but its tb has recv=-1")
                if kind == "nop":
                    require(cnt == 0, f"{at}: a nop with cnt={cnt}")
                for used, buffer, offset in ((kind in ("s", "rrc"), "srcbuf", "srcoff"),
                                             (kind in ("r", "rrc"), "dstbuf", "dstoff")):
                    if used:
                        first = integer(step, offset)
                        require(step.get(buffer) == "i", f"{at}: {buffer}={step.get(buffer)!r}, not 'i'")
                        require(cnt >= 1 and 0 <= first and first + cnt <= chunks,
                                f"{at}: {offset}={first} cnt={cnt} leaves [0, {chunks})")
                depid, deps = integer(step, "depid"), integer(step, "deps")
                if depid != -1 or deps != -1:
                    require(depid != t, f"{at} depends on its own tb")
                    require(0 <= depid < len(tbs) and 0 <= deps < len(tbs[depid].findall("step")),
                            f"{at}: depid={depid} deps={deps} names no step of gpu {g}")
                    named.add((depid, deps))
                require(step.get("hasdep") in ("0", "1"), f"{at}: hasdep={step.get('hasdep')!r}")
                if step.get("hasdep") == "1":
                    flagged.add((t, s))
        require(named == flagged, f"gpu {g}: depended on but hasdep=0: {sorted(named - flagged)}; "
                                  f"hasdep=1 but not depended on: {sorted(flagged - named)}")


Step = collections.namedtuple("Step", "type srcoff dstoff cnt depid deps")
Threadblock = collections.namedtuple("Threadblock", "send recv chan steps")
Runnable = collections.namedtuple("Runnable", "gpu tb s type")


class MscclInterpreter:
    """Executes a structurally checked document symbolically. GPU g's chunk j starts as Counter({g: 1}), the
    contributions it holds. A tb runs its steps in order; a step runs once its dependency (depid, deps) has. "s"
    appends a copy of chunks [srcoff, srcoff+cnt) to the FIFO (this gpu, send peer, chan); "r" and "rrc" run only
    when the FIFO (recv peer, this gpu, chan) holds a message, which must have cnt chunks: "r" writes them to
    [dstoff, dstoff+cnt), "rrc" writes their sums with the local [srcoff, srcoff+cnt) there; "nop" only waits."""

    def __init__(self, root):
        self.chunks = integer(root, "nchunksperloop")
        self.gpus = [[Threadblock(integer(tb, "send"), integer(tb, "recv"), integer(tb, "chan"),
                                  [Step(step.get("type"), *(integer(step, name) for name in Step._fields[1:]))
                                   for step in tb.findall("step")])
                      for tb in gpu.findall("tb")] for gpu in root.findall("gpu")]

    def run(self, choose):
        """Runs every step, each time the one `choose` picks from the runnable ones, and returns the (gpu, tb, step)s
        in the order they ran; raises a MscclError."""
        ranks = len(self.gpus)
        buffers = [[collections.Counter({g: 1}) for _ in range(self.chunks)] for g in range(ranks)]
        fifos = collections.defaultdict(collections.deque)
        done, ran = set(), []
        position = {(g, t): 0 for g, tbs in enumerate(self.gpus) for t in range(len(tbs))}
        while True:
            pending = [(g, t, s) for (g, t), s in position.items() if s < len(self.gpus[g][t].steps)]
            if not pending:
                break
            runnable = [Runnable(g, t, s, self.gpus[g][t].steps[s].type)
                        for g, t, s in pending if not self.blocker(g, t, s, done, fifos)]
            if not runnable:
                stuck = "; ".join(f"gpu {g} tb {t} step {s} {self.blocker(g, t, s, done, fifos)}"
                                  for g, t, s in pending)
                raise Deadlock(f"{len(done)} steps ran, then none can: {stuck}")
            g, t, s, kind = choose(runnable)
            tb, step, buffer = self.gpus[g][t], self.gpus[g][t].steps[s], buffers[g]
            if kind == "s":
                fifos[(g, tb.send, tb.chan)].append([buffer[step.srcoff + i].copy() for i in range(step.cnt)])
            elif kind in ("r", "rrc"):
                message = fifos[(tb.recv, g, tb.chan)].popleft()
                if len(message) != step.cnt:
                    raise CountMismatch(f"gpu {g} tb {t} step {s} receives cnt={step.cnt} from gpu {tb.recv} "
                                        f"chan {tb.chan}, which sent {len(message)} chunks")
                for i, chunk in enumerate(message):
                    buffer[step.dstoff + i] = chunk + buffer[step.srcoff + i] if kind == "rrc" else chunk
            done.add((g, t, s))
            ran.append((g, t, s))
            position[(g, t)] += 1
        left = {key: len(fifo) for key, fifo in fifos.items() if fifo}
        if left:
            raise WrongResult(f"messages never received, by (src, dst, chan): {left}")
        everyone = collections.Counter(range(ranks))
        for g, buffer in enumerate(buffers):
            for j, chunk in enumerate(buffer):
                if chunk != everyone:
                    raise WrongResult(f"gpu {g} chunk {j} holds {dict(chunk)}, not one of each of {ranks} gpus")
        return ran

    def blocker(self, g, t, s, done, fifos):
        """What keeps step s of tb t on gpu g from running now, or None."""
        tb = self.gpus[g][t]
        step = tb.steps[s]
        if step.depid != -1 and (g, step.depid, step.deps) not in done:
            return f"({step.type}) waits for tb {step.depid} step {step.deps}"
        if step.type in ("r", "rrc") and not fifos[(tb.recv, g, tb.chan)]:
            return f"({step.type}) waits for a message from gpu {tb.recv} chan {tb.chan}"
        return None


def policies():
    """Fresh step orders: the first runnable non-send before any send (a chunk overwritten before it is sent
    shows), the first runnable send before any non-send (a chunk sent before it is complete shows), and seeded
    random picks."""
    yield "sends last", lambda runnable: min(runnable, key=lambda step: step.type == "s")
    yield "sends first", lambda runnable: min(runnable, key=lambda step: step.type != "s")
    for seed in range(6):
        yield f"random order {seed}", random.Random(seed).choice


def run_every_policy(root):
    """Runs the document under every policy; re-raises the first failure with the policy's name. Returns the
    interpreter and the order of the last run."""
    interpreter = MscclInterpreter(root)
    for name, choose in policies():
        try:
            order = interpreter.run(choose)
        except MscclError as error:
            raise type(error)(f"{name}: {error}") from None
    return interpreter, order


def check_races(interpreter, order):
    """The interpreter's steps are atomic, so two unordered rrc into one chunk sum right in any order it picks,
    where a GPU would lose one of the updates. Happens-before orders a tb's steps, a step after its dependency and
    a receive after the send it pairs with; every two steps of a GPU that touch a common chunk, one of them writing
    it, must be ordered. `order`, a completed run, lists each step after all that happen before it."""
    earlier = {}  # (gpu, tb, step) -> the steps that happen before it
    touching = collections.defaultdict(list)  # (gpu, chunk) -> [(step, writes it)]
    sent = collections.defaultdict(collections.deque)
    for g, t, s in order:
        tb = interpreter.gpus[g][t]
        step = tb.steps[s]
        before = [(g, t, s - 1)] if s else []
        if step.depid != -1:
            before.append((g, step.depid, step.deps))
        if step.type in ("r", "rrc"):
            before.append(sent[(tb.recv, g, tb.chan)].popleft())
        elif step.type == "s":
            sent[(g, tb.send, tb.chan)].append((g, t, s))
        earlier[(g, t, s)] = set(before).union(*(earlier[b] for b in before))
        reads = range(step.srcoff, step.srcoff + step.cnt) if step.type in ("s", "rrc") else range(0)
        writes = range(step.dstoff, step.dstoff + step.cnt) if step.type in ("r", "rrc") else range(0)
        for j in sorted(set(reads) | set(writes)):
            for other, other_writes in touching[(g, j)]:
                if (other_writes or j in writes) and other not in earlier[(g, t, s)]:
                    raise Race(f"gpu {g} chunk {j}: tb {t} step {s} ({step.type}) and tb {other[1]} step {other[2]} "
                               f"are not ordered")
            touching[(g, j)].append(((g, t, s), j in writes))


def check_export(root):
    check_structure(root)
    check_races(*run_every_policy(root))


def drop_dependencies(gpu, steps):
    """Clears the dependency of each of `steps` of `gpu`, and sets hasdep to what is still depended on."""
    for step in steps:
        step.attrib.update(depid="-1", deps="-1")
    named = {(step.get("depid"), step.get("deps")) for step in gpu.iter("step")}
    for tb in gpu.findall("tb"):
        for step in tb.findall("step"):
            step.set("hasdep", "1" if (tb.get("id"), step.get("s")) in named else "0")


def ddlsim(*arguments):
    return subprocess.run([DDLSIM, "schedule", *arguments], capture_output=True, text=True, timeout=120)


def export(algorithm, ranks, *options, size=None):
    """The --msccl-xml export, --bytes 4 per rank (one float per block) unless `size` is given."""
    result = ddlsim("--algorithm", algorithm, "--ranks", str(ranks), "--bytes", size or str(4 * ranks),
                    *options, "--msccl-xml")
    if result.returncode != 0:
        raise AssertionError(f"ddlsim refused {algorithm} P={ranks} {options}: {result.stderr}")
    return ElementTree.fromstring(result.stdout)


class ExportedAllreducesRunCorrectly(unittest.TestCase):
    def check_exports(self, algorithm, cases):
        for ranks, *options in cases:
            with self.subTest(ranks=ranks, options=options):
                check_export(export(algorithm, ranks, *options))

    def test_ring(self):
        self.check_exports("ring", [(ranks,) for ranks in (1, 2, 3, 4, 5, 8)])

    def test_halving_doubling(self):
        self.check_exports("halving-doubling", [(4,), (6,), (8,)])

    def test_recursive_doubling(self):
        self.check_exports("recursive-doubling", [(5,), (8,)])

    def test_binomial_tree(self):
        self.check_exports("binomial-tree", [(3,), (8,)])

    def test_double_binary_tree(self):
        check_export(export("double-binary-tree", 7, "--chunk-bytes", "512", size="8K"))

    def test_ddl(self):
        self.check_exports("ddl", [(6, "--dims", "2x3"), (16, "--dims", "4x2x2")])

    def test_hierarchical(self):
        self.check_exports("hierarchical", [(8, "--ranks-per-node", "4"),
                                            (8, "--ranks-per-node", "4", "--inner", "halving-doubling")])

    def test_torus_2d(self):
        self.check_exports("torus-2d", [(8, "--dims", "4x2")])


class DoctoredExportsAreCaught(unittest.TestCase):
    """The ring P=4 export (halving-doubling P=4 for the race), broken one way at a time: each break is caught."""

    def setUp(self):
        self.root = export("ring", 4)
        check_structure(self.root)

    def test_dropping_the_dependencies_of_one_gpu_gives_a_wrong_result(self):
        gpu = self.root.find("gpu[@id='1']")
        drop_dependencies(gpu, list(gpu.iter("step")))
        check_structure(self.root)
        with self.assertRaises(WrongResult):
            run_every_policy(self.root)

    def test_swapping_two_steps_of_a_receive_threadblock_is_wrong_or_deadlocks(self):
        """Steps 0 and 1 trade everything but their position and hasdep, so the structure stays valid."""
        tb = next(tb for tb in self.root.find("gpu[@id='0']").iter("tb") if tb.get("recv") != "-1")
        first, second = tb.findall("step")[:2]
        moved = [{key: value for key, value in step.attrib.items() if key not in ("s", "hasdep")}
                 for step in (first, second)]
        first.attrib.update(moved[1])
        second.attrib.update(moved[0])
        check_structure(self.root)
        with self.assertRaises((WrongResult, Deadlock)):
            run_every_policy(self.root)

    def test_a_changed_count_is_a_mismatch(self):
        step = next(step for step in self.root.iter("step") if step.get("type") == "s" and step.get("srcoff") == "0")
        step.set("cnt", "2")
        check_structure(self.root)
        with self.assertRaisesRegex(CountMismatch, "cnt=1 .* sent 2 chunks"):
            run_every_policy(self.root)

    def test_two_unordered_reductions_into_one_chunk_are_a_race(self):
        """Halving-doubling P=4: GPU 0's second rrc into chunk 0 waits for its first. Without that wait every
        atomic order still sums right, but a GPU could lose one of the two read-modify-writes."""
        root = export("halving-doubling", 4)
        gpu = root.find("gpu[@id='0']")
        tbs = gpu.findall("tb")
        second = next(step for step in gpu.iter("step") if step.get("type") == "rrc" and step.get("depid") != "-1"
                      and tbs[int(step.get("depid"))].findall("step")[int(step.get("deps"))].get("type") == "rrc")
        drop_dependencies(gpu, [second])
        check_structure(root)
        interpreter, order = run_every_policy(root)
        with self.assertRaisesRegex(Race, "gpu 0 chunk 0: .* not ordered"):
            check_races(interpreter, order)

    def test_a_depended_on_step_without_hasdep_breaks_the_structure(self):
        next(step for step in self.root.iter("step") if step.get("hasdep") == "1").set("hasdep", "0")
        with self.assertRaisesRegex(StructureError, "depended on but hasdep=0"):
            check_structure(self.root)


class TheCommandLine(unittest.TestCase):
    RING = ("--algorithm", "ring", "--ranks", "4", "--bytes", "16")

    def test_a_reduce_scatter_and_json_are_refused(self):
        for options in (("--collective", "reduce-scatter"), ("--json",)):
            with self.subTest(options=options):
                result = ddlsim(*self.RING, *options, "--msccl-xml")
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertIn("--msccl-xml", result.stderr)
                self.assertEqual(result.stdout, "")

    def test_out_writes_the_file_and_nothing_on_stdout(self):
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "ring4.xml")
            result = ddlsim(*self.RING, "--msccl-xml", "--out", path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stdout, "")
            root = ElementTree.parse(path).getroot()
        check_export(root)

    def test_verify_keeps_the_xml_on_stdout_and_reports_on_stderr(self):
        result = ddlsim(*self.RING, "--verify", "--msccl-xml")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stderr, r"verify\s+ok")
        check_export(ElementTree.fromstring(result.stdout))


if __name__ == "__main__":
    unittest.main()
