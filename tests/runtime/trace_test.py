#!/usr/bin/python3
"""Timelines of one iteration, predicted (ddlsim SCENARIO --trace) and measured (ddlrun train --trace), in the
Chrome trace-event format: every rank has its compute phases and its bucket allreduces, a bucket's allreduce
starts once the backward pass has produced it, and the predicted timeline ends when the iteration does. A rank's
process id is its rank (plus a million per group before it), and each allreduce carries its bucket, bytes,
algorithm and channels as arguments.

Usage: trace_test.py DDLSIM DDLRUN SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

DDLSIM, DDLRUN, SOURCE = sys.argv.pop(1), sys.argv.pop(1), os.path.abspath(sys.argv.pop(1))


def load(path):
    with open(path) as file:
        return json.load(file)


def spans(trace):
    """{process name: [(lane, name, start_us, end_us)]} of a trace's complete events."""
    names = {event["pid"]: event["args"]["name"] for event in trace["traceEvents"]
             if event["ph"] == "M" and event["name"] == "process_name"}
    by_process = {}
    for event in trace["traceEvents"]:
        if event["ph"] == "X":
            by_process.setdefault(names[event["pid"]], []).append(
                (event["cat"], event["name"], event["ts"], event["ts"] + event["dur"]))
    return by_process


def check_processes_and_arguments(test, trace, buckets):
    """Each rank's process id is the rank within its group, and every allreduce has its arguments."""
    for event in trace["traceEvents"]:
        if event["ph"] == "M" and event["name"] == "process_name":
            rank = int(event["args"]["name"].rsplit("rank ", 1)[1])
            test.assertEqual(event["pid"] % 1000000, rank, event)
        if event["ph"] == "X" and event["cat"] == "allreduce":
            arguments = event["args"]
            test.assertIn(f"bucket {arguments['bucket']} ", event["name"])
            test.assertLess(arguments["bucket"], buckets)
            test.assertGreater(arguments["bytes"], 0)
            test.assertTrue(arguments["algorithm"])
            test.assertGreaterEqual(arguments["channels"], 1)


class IterationTimelines(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory()
        with open(os.path.join(SOURCE, "scenarios", "powerai-ddl-resnet50.json")) as file:
            scenario = json.load(file)
        scenario.update(gpus=[1, 8], algorithms=[{"name": "ddl", "dims": "topology"}, {"name": "ring"}])
        # The shipped effects, one iteration a point: the trace is that iteration, the same draws.
        scenario["effects"]["iterations"] = 1
        scenario["topology"] = os.path.join(SOURCE, "topologies", "minsky-p100-ib-edr.json")
        scenario["model"] = os.path.join(SOURCE, "models", "resnet50.json")
        cls.scenario = os.path.join(cls.directory.name, "scenario.json")
        with open(cls.scenario, "w") as out:
            json.dump(scenario, out)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def path(self, name):
        return os.path.join(self.directory.name, name)

    def check_timeline(self, by_process, ranks, buckets):
        self.assertEqual(len(by_process), ranks)
        for process, events in by_process.items():
            compute = sorted((event for event in events if event[0] == "compute"), key=lambda event: event[2])
            allreduces = sorted((event for event in events if event[0] == "allreduce"), key=lambda event: event[2])
            self.assertEqual(len(allreduces), buckets, process)
            self.assertEqual(compute[-1][1], "optimizer", f"{process}: the optimizer is not the last compute")
            for (_, earlier, _, end), (_, later, start, _) in zip(compute, compute[1:]):
                self.assertLessEqual(end, start + 1e-3, f"{process}: {earlier} overlaps {later}")
            ends = {name: end for _, name, _, end in compute}
            for bucket, (_, name, start, end) in enumerate(allreduces):
                self.assertIn(f"bucket {bucket}", name)
                self.assertLess(start, end)
                produced = ends["forward, backward to bucket 0" if bucket == 0 else f"backward to bucket {bucket}"]
                self.assertGreaterEqual(start, produced - 1e-3, f"{process}: {name} before its gradients")

    def test_the_predicted_timeline_has_every_rank_and_ends_with_the_iteration(self):
        trace, results = self.path("predicted.json"), self.path("results.json")
        done = subprocess.run([DDLSIM, self.scenario, "--json", "--out", results, "--trace", trace, "--trace-algorithm", "ring"],
                              capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        by_process = spans(load(trace))
        self.check_timeline(by_process, ranks=8, buckets=4)
        check_processes_and_arguments(self, load(trace), 4)
        iteration = next(point["iteration_s"] for point in load(results)["points"]
                         if point["algorithm"] == "ring" and point["gpus"] == 8)
        end = max(event[3] for events in by_process.values() for event in events)
        self.assertAlmostEqual(end * 1e-6, iteration, delta=1e-9)

    def test_the_measured_timeline_has_each_algorithm_and_rank(self):
        trace = self.path("measured.json")
        done = subprocess.run([DDLRUN, "train", self.scenario, "--transport", "threads", "--ranks", "2", "--compute-scale", "0.01",
                               "-n", "2", "-w", "1", "--trace", trace], capture_output=True, text=True, timeout=300)
        self.assertEqual(done.returncode, 0, done.stderr)
        by_process = spans(load(trace))
        check_processes_and_arguments(self, load(trace), 4)
        self.assertEqual(sorted(by_process), ["ddl 2 at 2 GPUs, measured: rank 0", "ddl 2 at 2 GPUs, measured: rank 1",
                                              "ring at 2 GPUs, measured: rank 0", "ring at 2 GPUs, measured: rank 1"])
        for algorithm in ("ddl 2", "ring"):
            self.check_timeline({p: e for p, e in by_process.items() if p.startswith(algorithm + " ")}, ranks=2, buckets=4)

    def test_a_point_outside_the_sweep_is_bad_input(self):
        for arguments, flag in ((["--trace", self.path("t.json"), "--trace-gpus", "16"], "--trace-gpus"),
                                (["--trace", self.path("t.json"), "--trace-algorithm", "tree"], "--trace-algorithm"),
                                (["--trace-gpus", "8"], "--trace-gpus")):
            done = subprocess.run([DDLSIM, self.scenario, *arguments], capture_output=True, text=True, timeout=60)
            self.assertEqual(done.returncode, 2, arguments)
            self.assertIn(flag, done.stderr)
            self.assertEqual(done.stdout, "")
            self.assertFalse(os.path.exists(self.path("t.json")))


if __name__ == "__main__":
    unittest.main()
