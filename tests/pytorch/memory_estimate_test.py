"""ddlscale_torch.memory: the floor that ddlscale_torch.profile and .train refuse with before they make a batch.
It counts the parameters once per copy the caller names and what autograd saves of a real forward pass, found
on the meta device; it lies under what a step really takes here; and --dry-run reports it and runs nothing.

    memory_estimate_test.py PYTHONPATH
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import unittest

PACKAGE = sys.argv.pop(1) if len(sys.argv) > 1 else "."
sys.path.insert(0, PACKAGE)
from ddlscale_torch import memory, workload  # noqa: E402

RESNET18_PARAMETERS = 11_689_512  # torchvision's


def arguments_of(*flags):
    parser = argparse.ArgumentParser()
    workload.add_arguments(parser)
    return parser.parse_args(list(flags))


class Floor(unittest.TestCase):
    def test_each_copy_of_the_parameters_counts_their_fp32_bytes(self):
        resnet = arguments_of("--model", "resnet18", "--batch", "2")
        self.assertEqual(memory.process_bytes(resnet, 3) - memory.process_bytes(resnet, 2), 4 * RESNET18_PARAMETERS)

    def test_what_backward_keeps_grows_with_the_batch_and_the_sequence(self):
        def saved(*flags):
            arguments = arguments_of(*flags)
            return memory.saved_for_backward_bytes(arguments, workload.model(arguments).to("meta"))

        # A convolutional net keeps every layer's activations for each image: linear in the batch, each image
        # adding as much as the last.
        four, eight, twelve = (saved("--model", "resnet18", "--batch", str(batch)) for batch in (4, 8, 12))
        self.assertGreater(eight, four)
        self.assertEqual(eight - four, twelve - eight)
        # Attention keeps a tokens x tokens matrix per head: twice the tokens, more than twice the bytes.
        self.assertGreater(saved("--model", "gpt-nano", "--sequence-length", "128", "--batch", "2"),
                           2 * saved("--model", "gpt-nano", "--sequence-length", "64", "--batch", "2"))

    def test_the_floor_lies_under_what_a_profile_step_takes(self):
        # The profile's floor (the model and its momentum, what backward keeps, the batches) against the peak
        # resident memory of three steps, over the process before its model was built.
        step = """
import argparse, resource, sys
from ddlscale_torch import workload
parser = argparse.ArgumentParser(); workload.add_arguments(parser); arguments = parser.parse_args(sys.argv[1:])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
network = workload.model(arguments)
optimiser, data = workload.optimiser(network.parameters()), workload.batches(arguments, 0)
for batch in data[:3]:
    workload.step(network, optimiser, batch)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""
        flags = ["--model", "resnet18", "--image-size", "96", "--batch", "16"]
        run = subprocess.run([sys.executable, "-c", step, *flags], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=PACKAGE), timeout=300)
        self.assertEqual(run.returncode, 0, run.stderr)
        floor, measured = memory.process_bytes(arguments_of(*flags), 2), int(run.stdout.split()[-1])
        print(f"resnet18, 96 px, batch 16: floor {floor / 1e6:.1f} MB, measured {measured / 1e6:.1f} MB", file=sys.stderr)
        self.assertLess(floor, measured)


class DryRunAndRefusal(unittest.TestCase):
    def run_module(self, module, *flags, **environment):
        return subprocess.run([sys.executable, "-m", f"ddlscale_torch.{module}", *flags], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=PACKAGE, **environment), timeout=300)

    def test_a_dry_run_reports_the_floor_of_the_processes_here_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            out = os.path.join(folder, "profile.json")
            run = self.run_module("profile", "--batch", "4", "--corun", "3", "--out", out, "--dry-run")
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("ddlscale_torch.profile: the options hold; 3 process(es) here, each at least", run.stdout)
            self.assertEqual(os.listdir(folder), [])
        run = self.run_module("train", "--batch", "4", "--dry-run", LOCAL_WORLD_SIZE="5")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("ddlscale_torch.train: the options hold; 5 process(es) here", run.stdout)

    def test_a_batch_beyond_this_machine_is_refused_with_the_numbers_before_any_is_made(self):
        run = self.run_module("train", "--batch", "100000", DDLSCALE_MEMORY_BYTES="2000000000")
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertIn("--batch 100000: training resnet18 on 1 process(es) here, at least", run.stderr)
        self.assertIn("this machine has 2.0 GB available", run.stderr)
        self.assertNotIn("Traceback", run.stderr)


if __name__ == "__main__":
    unittest.main()
