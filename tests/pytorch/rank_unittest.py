"""What the backend's unittest scripts share: checking a refusal's message, and running a script's tests on
every rank of an MPI job over the "ddlscale" default group."""
import datetime
import sys
import unittest

import torch.distributed as dist


def assert_refused(test, call, *words):
    """`call` raises the RuntimeError (or ValueError) of a refusal, and its message holds each of `words`."""
    with test.assertRaises((RuntimeError, ValueError)) as raised:
        call()
    for word in words:
        test.assertIn(word, str(raised.exception))


def run_on_every_rank(after_init=None):
    """Runs __main__'s tests on this rank of the job over a "ddlscale" default group, after `after_init()`;
    exits non-zero where a test failed here."""
    # A rank that fails a check and leaves the others waiting ends the job in a minute, not torch's 30.
    dist.init_process_group("ddlscale", init_method="ddlscale://", timeout=datetime.timedelta(seconds=60))
    if after_init:
        after_init()
    result = unittest.main(argv=[sys.argv[0]], exit=False, verbosity=2 if dist.get_rank() == 0 else 0).result
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0 if result.wasSuccessful() else 1)
