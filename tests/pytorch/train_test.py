"""python3 -m ddlscale_torch.train, as a user runs it under mpirun: a 2-rank job of ResNet-18 over "ddlscale" and
over gloo, and one of a small GPT under ZeRO stage 1, writes the results schema that ddlcompare reads, with figures that hold together, and bad options
exit 2 with a message before any MPI job is started.

    train_test.py MPIRUN PYTHONPATH SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

MPIRUN, PACKAGE, SOURCE = sys.argv[1:4] if len(sys.argv) >= 4 else ("mpirun", ".", ".")
sys.argv[1:] = []
FLAGS = ["--allow-run-as-root", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
TINY = ["--model", "resnet18", "--image-size", "32", "--batch", "4", "-n", "3", "-w", "1"]


def environment(**extra):
    return dict(os.environ, PYTHONPATH=PACKAGE, **extra)


def train(folder, name, *options, algorithm="ring", workload=TINY):
    out = os.path.join(folder, f"{name}.json")
    command = [MPIRUN, *FLAGS, "-np", "2", "-x", "PYTHONPATH", "-x", "DDLSCALE_ALGORITHM",
               sys.executable, "-m", "ddlscale_torch.train", *workload, *options, "--json", out]
    job = subprocess.run(command, capture_output=True, text=True, timeout=600,
                         env=environment(DDLSCALE_ALGORITHM=algorithm))
    if job.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {job.returncode}:\n{job.stdout}\n{job.stderr}")
    with open(out, encoding="utf-8") as file:
        return out, json.load(file), job.stdout


class Train(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.folder)
        cls.ddlscale_path, cls.ddlscale, cls.printed = train(cls.folder, "ddlscale", "--configuration", "two ranks",
                                                             algorithm="ddl dims=2")
        cls.gloo_path, cls.gloo, _ = train(cls.folder, "gloo", "--backend", "gloo", "--configuration", "two ranks")
        cls.zero1_path, cls.zero1, _ = train(cls.folder, "zero1", "--parallelism", "zero1", workload=[
            "--model", "gpt-nano", "--sequence-length", "16", "--batch", "2", "-n", "2", "-w", "1"])

    def test_the_point_holds_together(self):
        point = self.ddlscale["points"][0]
        self.assertEqual((point["gpus"], point["algorithm"], point["parameters"], point["label"]), (2, "ddl", {"dims": [2]}, "ddl 2"))
        self.assertEqual(self.ddlscale["run"]["transport"], "mpi")
        self.assertAlmostEqual(point["images_per_s"], 2 * 4 / point["iteration_s"])
        self.assertAlmostEqual(point["efficiency"], point["baseline_s"] / point["iteration_s"])
        self.assertAlmostEqual(point["exposed_comm_s"], max(0.0, point["iteration_s"] - point["compute_s"]))
        # ResNet-18's 11,689,512 parameters (torchvision) are the buckets' float32 gradients, every one once.
        self.assertEqual(sum(c["bytes"] for c in point["collectives"]), 11_689_512 * 4)
        effects = point["measured_effects"]
        self.assertEqual(effects["iterations"], 3)
        for key in ("compute_alone_s", "compute_overlapped_s", "overlap_s", "allreduce_overhead_s"):
            self.assertEqual(len(effects[key]), 2, key)
        for rank in range(2):  # the overlap lies within the compute it overlaps
            self.assertLessEqual(effects["overlap_s"][rank], effects["compute_overlapped_s"][rank])
        self.assertIn("iteration", self.printed)

    def test_gloo_is_the_same_point_over_another_transport(self):
        point = self.gloo["points"][0]
        self.assertEqual((point["algorithm"], self.gloo["run"]["transport"]), ("gloo", "gloo"))
        self.assertEqual([c["bytes"] for c in point["collectives"]],
                         [c["bytes"] for c in self.ddlscale["points"][0]["collectives"]])

    def test_zero1_reduce_scatters_every_bucket_then_all_gathers_it(self):
        point = self.zero1["points"][0]
        self.assertEqual(self.zero1["run"]["parallelism"], "zero1")
        self.assertEqual(self.ddlscale["run"]["parallelism"], "ddp")
        kinds = [c["collective"] for c in point["collectives"]]
        buckets = len(kinds) // 2
        self.assertGreaterEqual(buckets, 2)  # gpt-nano's 3.8 MB: DDP's 1 MiB first bucket, then the rest
        self.assertEqual(kinds, ["reduce-scatter"] * buckets + ["all-gather"] * buckets)
        scattered = [c["bytes"] for c in point["collectives"][:buckets]]
        self.assertEqual(scattered, [c["bytes"] for c in point["collectives"][buckets:]])
        # gpt-nano's 953,856 float32 parameters, each bucket padded to a multiple of the 2 ranks.
        self.assertGreaterEqual(sum(scattered), 953_856 * 4)
        self.assertLess(sum(scattered), 953_856 * 4 + buckets * 2 * 4)
        for collective in point["collectives"]:  # nccl-tests' bus bandwidth of a reduce-scatter or all-gather: (n-1)/n
            self.assertAlmostEqual(collective["busbw_Bps"], collective["algbw_Bps"] / 2)

    def test_the_results_schema_and_ddlcompare_read_it(self):
        import jsonschema
        with open(os.path.join(SOURCE, "docs", "schemas", "results.schema.json"), encoding="utf-8") as file:
            schema = json.load(file)
        for results in (self.ddlscale, self.gloo, self.zero1):
            jsonschema.validate(results, schema)
        compared = subprocess.run([sys.executable, os.path.join(SOURCE, "analysis", "ddlcompare"), self.ddlscale_path,
                                   self.ddlscale_path], capture_output=True, text=True)
        self.assertEqual(compared.returncode, 0, compared.stderr)
        self.assertIn("ddl 2", compared.stdout)

    def test_bad_options_exit_2_naming_them(self):
        for options, word in ((["--model", "resnet9000"], "--model"), (["--batch", "0"], "--batch"),
                              (["--backend", "nccl"], "--backend"), (["--parallelism", "zero3"], "--parallelism"),
                              (["--parallelism", "zero1", "--backend", "gloo"], "--parallelism"),
                              (["--model", "gpt-nano", "--sequence-length", "0"], "--sequence-length"),
                              (["--model", "gpt-nano", "--sequence-length", "257"], "--sequence-length")):
            run = subprocess.run([sys.executable, "-m", "ddlscale_torch.train", *options], capture_output=True,
                                 text=True, env=environment())
            self.assertEqual(run.returncode, 2, options)
            self.assertIn(word, run.stderr)
        # ZeRO-1 runs no allreduce: an allreduce chosen for it would label its point with what did not run.
        run = subprocess.run([sys.executable, "-m", "ddlscale_torch.train", "--model", "gpt-nano", "--parallelism", "zero1"],
                             capture_output=True, text=True, env=environment(DDLSCALE_ALGORITHM="ddl dims=2"))
        self.assertEqual(run.returncode, 2)
        self.assertIn("DDLSCALE_ALGORITHM", run.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
