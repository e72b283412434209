#!/usr/bin/python3
"""The repository stands alone: nothing in it points outside it, and the model files it ships regenerate,
byte for byte, from the reference data in docs/reference.

Usage: self_contained_test.py SOURCE_DIR
"""
import pathlib
import subprocess
import sys
import tempfile
import unittest

SOURCE = pathlib.Path(sys.argv.pop(1) if len(sys.argv) > 1 else ".").resolve()
OUTSIDE = "../" "shared"
GENERATED_MODELS = ("resnet50", "resnet101", "resnet101-22k")
GENERATED_TRANSFORMERS = ("gpt2", "gpt2-medium", "gpt2-xl", "bert-large", "bert-large-seq512", "llama2-7b")


def tracked_files():
    listing = subprocess.run(["git", "-C", str(SOURCE), "ls-files", "-z"], capture_output=True, check=True)
    return [SOURCE / name for name in listing.stdout.decode().split("\0") if name]


class RepositoryStandsAlone(unittest.TestCase):
    def test_no_tracked_file_points_at_a_folder_beside_the_repository(self):
        # The project once cited its design and reference data in a folder beside the checkout, which a clone
        # does not have. Spelt in two halves so that this file does not match itself.
        offenders = []
        for path in tracked_files():
            if path.is_symlink() or not path.is_file():
                continue
            text = path.read_bytes().decode("utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if OUTSIDE in line:
                    offenders.append(f"{path.relative_to(SOURCE)}:{number}: {line.strip()[:100]}")
        self.assertEqual(offenders, [], "files that refer outside the repository")

    def test_the_design_and_the_reference_data_are_in_docs(self):
        for name in ("DESIGN.md", "reference/README.md", "reference/resnet50-gradients-backprop-order.csv",
                     "reference/resnet101-gradients-backprop-order.csv", "reference/h200-measured-2026-11-29.json"):
            self.assertTrue((SOURCE / "docs" / name).is_file(), f"docs/{name} is missing")

    def test_the_shipped_models_regenerate_from_docs_reference(self):
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, str(SOURCE / "models/generate_resnet_models.py"),
                            str(SOURCE / "docs/reference"), out], check=True, capture_output=True)
            for name in GENERATED_MODELS:
                generated = pathlib.Path(out, f"{name}.json").read_bytes()
                shipped = (SOURCE / "models" / f"{name}.json").read_bytes()
                self.assertEqual(generated, shipped, f"models/{name}.json differs from what the generator writes")

    def test_the_shipped_transformers_regenerate_from_their_published_configurations(self):
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, str(SOURCE / "models/generate_transformer_models.py"), out],
                           check=True, capture_output=True)
            for name in GENERATED_TRANSFORMERS:
                generated = pathlib.Path(out, f"{name}.json").read_bytes()
                shipped = (SOURCE / "models" / f"{name}.json").read_bytes()
                self.assertEqual(generated, shipped, f"models/{name}.json differs from what the generator writes")
            self.assertEqual(sorted(p.stem for p in pathlib.Path(out).glob("*.json")), sorted(GENERATED_TRANSFORMERS))


if __name__ == "__main__":
    unittest.main()
