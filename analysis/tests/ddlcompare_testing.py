"""What the ddlcompare tests share: the tool loaded as a module, and a test case with a directory of its own
to write results files in and a way to run ddlcompare's main() capturing what it prints."""
import importlib.machinery
import importlib.util
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader("ddlcompare", os.path.join(HERE, "..", "ddlcompare"))
ddlcompare = importlib.util.module_from_spec(importlib.util.spec_from_loader("ddlcompare", _loader))
_loader.exec_module(ddlcompare)


class DdlcompareTestCase(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.directory.cleanup()

    def write(self, name, content):
        """A file in this test's directory: text, bytes, or a document written as JSON."""
        path = os.path.join(self.directory.name, name)
        if isinstance(content, str):
            content = content.encode()
        elif not isinstance(content, bytes):
            content = json.dumps(content).encode()
        with open(path, "wb") as file:
            file.write(content)
        return path

    def run_main(self, *argv):
        """ddlcompare's exit status, standard output and standard error for these arguments."""
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = ddlcompare.main(list(argv))
        return status, out.getvalue(), err.getvalue()
