"""python3 -m ddlscale_torch.profile, then `ddlsim model import`, then a scenario on an emulated cluster's
topology: the profile holds every parameter's gradient once, in the order backward produced it, with phases
that add up; the imported model simulates one rank's iteration as the very time measured, and ranks beyond
the shared host's throughput stretch it.

    profile_test.py PYTHONPATH DDLSIM SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PACKAGE, DDLSIM, SOURCE = sys.argv[1:4] if len(sys.argv) >= 4 else (".", "ddlsim", ".")
sys.argv[1:] = []


class ProfileThenImport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.folder)
        cls.profile_path = os.path.join(cls.folder, "profile.json")
        run = subprocess.run([sys.executable, "-m", "ddlscale_torch.profile", "--model", "resnet18", "--image-size", "32",
                              "--batch", "4", "-n", "3", "-w", "1", "--corun", "2", "--out", cls.profile_path],
                             capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=PACKAGE), timeout=600)
        assert run.returncode == 0, run.stderr
        with open(cls.profile_path, encoding="utf-8") as file:
            cls.profile = json.load(file)

    def test_the_profile_holds_every_gradient_once_in_backprop_order_and_adds_up(self):
        gradients = self.profile["gradients"]
        self.assertEqual(sum(g["elements"] for g in gradients), 11_689_512)  # torchvision's ResNet-18
        self.assertEqual(len({g["name"] for g in gradients}), len(gradients))
        self.assertEqual(gradients[0]["name"], "fc.bias")  # the classifier's come first in backward...
        self.assertEqual(gradients[-1]["name"], "conv1.weight")  # ...and the stem's last
        phases = self.profile["forward_s"] + sum(g["backward_s"] for g in gradients) + self.profile["optimizer_s"]
        self.assertAlmostEqual(phases, self.profile["iteration_s"], delta=1e-12)
        corun = self.profile["corun"]
        self.assertEqual(corun["processes"], 2)
        self.assertAlmostEqual(corun["throughput"], 2 * self.profile["iteration_s"] / corun["iteration_s"])

    def test_a_gpt_profile_counts_its_tokens_and_every_parameter_once(self):
        path = os.path.join(self.folder, "gpt.json")
        run = subprocess.run([sys.executable, "-m", "ddlscale_torch.profile", "--model", "gpt-nano", "--sequence-length", "16",
                              "--batch", "2", "-n", "2", "-w", "1", "--out", path],
                             capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=PACKAGE), timeout=600)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(path, encoding="utf-8") as file:
            profile = json.load(file)
        self.assertEqual(profile["sequence_length"], 16)
        self.assertNotIn("image_size", profile)
        # gpt-nano: 2 layers of width 128 (12 w^2 + 13 w each), 2048 tokens and 256 positions, the head.
        width, vocabulary = 128, 2048
        expected = 2 * (12 * width * width + 13 * width) + (vocabulary + 256) * width + 2 * width + width * vocabulary
        self.assertEqual(sum(g["elements"] for g in profile["gradients"]), expected)
        self.assertEqual(profile["gradients"][0]["name"], "head.weight")  # the last layer's gradient comes first

    def test_the_imported_model_simulates_the_iteration_measured_and_the_shared_host_stretches_it(self):
        model = os.path.join(self.folder, "resnet18-32px.json")
        imported = subprocess.run([DDLSIM, "model", "import", self.profile_path, "--gpu", "cpu-rank", "--out", model],
                                  capture_output=True, text=True)
        self.assertEqual(imported.returncode, 0, imported.stderr)
        topology = os.path.join(self.folder, "emulated.json")
        with open(topology, "w", encoding="utf-8") as file:
            subprocess.run([sys.executable, os.path.join(SOURCE, "runtime/emulated_cluster/emulated_topology.py"), "--nodes", "4",
                            "--rate-bytes", "1.25e9", "--latency-ms", "0.01", "--shared-cores", "2", "--throughput", "1.5"],
                           stdout=file, check=True)
        scenario = os.path.join(self.folder, "scenario.json")
        with open(scenario, "w", encoding="utf-8") as file:
            json.dump({"name": "profiled", "topology": "emulated.json", "model": "resnet18-32px.json", "gpu": "cpu-rank",
                       "batch_per_gpu": 4, "fusion": {"policy": "ddp"}, "gpus": [1, 4],
                       "algorithms": [{"name": "ring"}]}, file)
        simulated = subprocess.run([DDLSIM, scenario, "--json"], capture_output=True, text=True)
        self.assertEqual(simulated.returncode, 0, simulated.stderr)
        one, four = json.loads(simulated.stdout)["points"]
        self.assertAlmostEqual(one["iteration_s"], self.profile["iteration_s"], delta=1e-9 * self.profile["iteration_s"])
        # 4 ranks on a machine delivering 1.5 ranks alone: compute 4 / 1.5 times one rank's, and some network.
        self.assertGreater(four["iteration_s"], 4 / 1.5 * self.profile["iteration_s"])

    def test_bad_options_exit_2_naming_them(self):
        for options, word in ((["--model", "resnet9000", "--out", "x.json"], "--model"),
                              (["--steps", "0", "--out", "x.json"], "--steps"), (["--corun", "-1", "--out", "x.json"], "--corun"),
                              (["--out", "/no/such/folder/p.json"], "--out")):
            run = subprocess.run([sys.executable, "-m", "ddlscale_torch.profile", *options], capture_output=True, text=True,
                                 env=dict(os.environ, PYTHONPATH=PACKAGE))
            self.assertEqual(run.returncode, 2, options)
            self.assertIn(word, run.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
