"""The Python module against the command line: every entry point, the errors, a sweep, the GIL.

Run by ctest (python_module) with PYTHONPATH at the build tree's package and TOPOPLAN at the
`topoplan` program. The golden documents are the command line's own (tests/cli/golden).
"""

import csv
import io
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import warnings

import topoplan

GOLDEN = pathlib.Path(__file__).resolve().parent.parent / "cli" / "golden"
CLI = os.environ.get("TOPOPLAN", "")


def golden(name):
    return json.loads((GOLDEN / name).read_text())


def cli_json(*args):
    """The command line's --json document for the same request."""
    out = subprocess.run([CLI, *args, "--json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def masked(doc):
    """The document with the search speed (which varies run to run) as the goldens hold it."""
    doc = dict(doc)
    if "evaluations_per_s_per_core" in doc:
        doc["evaluations_per_s_per_core"] = "(timing)"
    return doc


class SameDocumentsAsTheCommandLine(unittest.TestCase):
    def test_plan_equals_its_golden(self):
        p = topoplan.plan(model="llama-3-8b", topology="hgx-h100-8", tp=4, pp=1, batch=16,
                          prompt=512, output=256)
        self.assertEqual(masked(p.to_dict()), golden("plan_llama_3_8b_h100.json"))

    def test_plan_train_equals_its_golden(self):
        t = topoplan.plan_train(model="llama-3-8b", topology="hgx-h100-8", seq=4096,
                                global_batch=32, top=2, no_timing=True)
        self.assertEqual(t.to_dict(), golden("plan_train_llama_3_8b.json"))

    def test_roofline_equals_its_golden(self):
        r = topoplan.roofline("llama-3-8b", gpu="H200-SXM", batch=8, context=8192)
        self.assertEqual(r.to_dict(), golden("roofline_llama3_8b_h200.json"))

    def test_compare_train_equals_its_golden(self):
        c = topoplan.compare(model="llama-3-8b", mode="train", tokens="15T", seq=4096,
                             global_batch=256, top=1,
                             topology=["hgx-h100-8:nodes=4", "hgx-h200-8:nodes=4",
                                       "hgx-b200-8:nodes=2"])
        self.assertEqual(c.to_dict(), golden("compare_train_llama8b_15T.json"))
        self.assertEqual(c.designs[0].gpus, 32)

    @unittest.skipUnless(CLI, "TOPOPLAN (the program) not set")
    def test_collective_compare_topology_model_equal_the_program(self):
        c = topoplan.collective("all-reduce", topology="hgx-h100-8", sweep="8:4G:16")
        self.assertEqual(c.to_dict(), golden("collective_all-reduce_hgx-h100-8_sweep.json"))
        d = topoplan.compare(model="llama-3-8b", topology=["hgx-h100-8", "hgx-h200-8"])
        self.assertEqual(masked(d.to_dict()), masked(cli_json(
            "compare", "--model", "llama-3-8b", "--topology", "hgx-h100-8", "--topology",
            "hgx-h200-8")))
        self.assertEqual(topoplan.topology("hgx-h100-8", nodes=2).to_dict(),
                         cli_json("topo", "show", "hgx-h100-8", "--nodes", "2"))
        self.assertEqual(topoplan.model("deepseek-r1").to_dict(),
                         golden("model_show_deepseek_r1.json"))
        self.assertEqual(topoplan.models().to_dict(), golden("model_list.json"))
        self.assertEqual(topoplan.topologies().to_dict(), golden("topo_list.json"))


class EntryPoints(unittest.TestCase):
    def test_the_issues_one_liner(self):
        p = topoplan.plan(model="deepseek-r1", topology="hgx-h20-8")
        self.assertEqual(p.status, "ok")
        self.assertIsInstance(p.plans[0].tpot_ms, float)
        self.assertGreater(p.plans[0].tpot_ms, 0)
        # Attributes are the JSON keys, all the way down.
        self.assertEqual(p.plans[0].strategy.tp, p.to_dict()["plans"][0]["strategy"]["tp"])
        self.assertEqual(p.plans[0].strategy, p.to_dict()["plans"][0]["strategy"])
        self.assertIn("tpot_ms", dir(p.plans[0]))

    def test_collective_busbw_is_algbw_times_2_n_minus_1_over_n(self):
        # nccl-tests' all-reduce bus bandwidth on 8 ranks: algbw x 2(n-1)/n = 1.75 algbw.
        c = topoplan.collective("all-reduce", topology="hgx-h100-8", size="1GiB")
        self.assertEqual(c.busbw_factor, 1.75)
        first = c.results[0]
        self.assertEqual(first.size_bytes, 2**30)
        self.assertAlmostEqual(first.busbw_GBps, first.algbw_GBps * 1.75, delta=0.01)

    def test_gpus_and_topologies_list_the_catalog(self):
        names = json.dumps(topoplan.gpus().to_dict())
        self.assertIn("H20", names)
        self.assertIn("hgx-h20-8", json.dumps(topoplan.topologies().to_dict()))

    def test_emit_writes_the_engines_command(self):
        text = topoplan.emit("sglang", model="deepseek-r1", topology="hgx-h200-8", tp=8, pp=1,
                             dp=1, ep=8, attention_dp=True)
        self.assertIn("sglang.launch_server", text)
        self.assertIn("--tp-size 8", text)
        self.assertIn("--ep-size 8", text)
        self.assertIn("--enable-dp-attention", text)

    def test_csv_is_one_row_per_size(self):
        text = topoplan.csv("collective", "all-reduce", topology="hgx-h100-8", sweep="8:4G:16")
        rows = list(csv.DictReader(io.StringIO(text)))
        want = golden("collective_all-reduce_hgx-h100-8_sweep.json")["results"]
        self.assertEqual([int(r["size_bytes"]) for r in rows], [w["size_bytes"] for w in want])
        self.assertEqual(float(rows[-1]["busbw_GBps"]), want[-1]["busbw_GBps"])

    def test_run_and_help(self):
        done = topoplan.run("topo", "paths", "hgx-h100-8")
        self.assertEqual(done.exit_code, 0)
        self.assertIn("NV18", done.stdout)
        self.assertEqual(topoplan.run("--version").stdout.strip(), "topoplan 0.1.0")
        bad = topoplan.run("plan", "--model", "no-such-model")
        self.assertEqual(bad.exit_code, 2)
        self.assertIn("no-such-model", bad.stderr)
        self.assertEqual(topoplan.run("no-such-command").exit_code, 2)
        self.assertIn("--tpot-max", topoplan.help("plan"))
        self.assertIn("--gpu", topoplan.help("model roofline"))

    def test_a_sweep_serves_more_per_gpu_as_the_tpot_limit_loosens(self):
        # The notebook's sweep: a looser TPOT limit admits a larger batch, never less throughput.
        per_gpu = []
        for tpot_max in (15, 30, 60, 120):
            p = topoplan.plan(model="llama-3-70b", topology="hgx-h100-8", tpot_max=tpot_max,
                              top=1)
            self.assertEqual(p.status, "ok", p.message)
            self.assertLessEqual(p.plans[0].tpot_ms, tpot_max)
            per_gpu.append(p.plans[0].tokens_per_s_per_gpu)
        self.assertEqual(per_gpu, sorted(per_gpu))
        self.assertLess(per_gpu[0], per_gpu[-1])


class Errors(unittest.TestCase):
    def test_unknown_model_names_the_closest(self):
        with self.assertRaises(topoplan.InputError) as caught:
            topoplan.plan(model="deepseek-r2", topology="hgx-h20-8")
        self.assertIn("deepseek-r1", str(caught.exception))
        self.assertEqual(caught.exception.exit_code, 2)
        self.assertIsInstance(caught.exception, ValueError)

    def test_a_mistyped_keyword_suggests_the_right_one(self):
        with self.assertRaises(topoplan.InputError) as caught:
            topoplan.plan(model="llama-3-8b", topology="hgx-h100-8", tpot_maxx=20)
        self.assertIn("did you mean tpot_max", str(caught.exception))
        self.assertEqual(caught.exception.source, "tpot_maxx")

    def test_a_bad_value_names_its_flag(self):
        with self.assertRaises(topoplan.InputError) as caught:
            topoplan.plan(model="llama-3-8b", topology="hgx-h100-8", batch=-3)
        self.assertIn("--batch", str(caught.exception))

    def test_a_malformed_file_names_the_file_and_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"name": "broken",\n "devices": [\n')
        try:
            with self.assertRaises(topoplan.InputError) as caught:
                topoplan.topology(f.name)
            self.assertIn(f.name, str(caught.exception))
            self.assertIn("line", str(caught.exception))
        finally:
            os.unlink(f.name)

    def test_a_model_that_does_not_fit_is_an_answer_not_an_exception(self):
        p = topoplan.plan(model="llama-3.1-405b", topology="pcie-rtx4090-8")
        self.assertNotEqual(p.status, "ok")
        self.assertIn("weights alone need", p.message)

    def test_flags_and_keywords_of_the_wrong_kind(self):
        with self.assertRaises(topoplan.InputError):
            topoplan.plan(model="llama-3-8b", disagg="yes")  # an on/off flag
        with self.assertRaises(topoplan.InputError):
            topoplan.plan(model="llama-3-8b", json=True)  # the result is the document already
        with self.assertRaises(topoplan.InputError):
            topoplan.help("no-such-command")

    def test_a_result_is_read_only_and_names_its_keys(self):
        p = topoplan.model("llama-3-8b")
        with self.assertRaises(AttributeError) as caught:
            p.no_such_key
        self.assertIn("name", str(caught.exception))
        with self.assertRaises(AttributeError):
            p.name = "x"
        copy = p.to_dict()
        copy["name"] = "x"
        self.assertNotEqual(p.name, "x")


class Threads(unittest.TestCase):
    def test_the_gil_is_released_while_a_command_runs(self):
        # While a 64-server search runs in a worker thread, this thread keeps executing Python:
        # the longest pause between its loop iterations stays far below the search's length.
        # Holding the GIL would stop it for the whole search.
        sys.setswitchinterval(0.001)
        call = {}

        def search():
            started = time.perf_counter()
            topoplan.plan(model="deepseek-r1", topology="hgx-h100-8", nodes=64, threads=1)
            call["s"] = time.perf_counter() - started

        worker = threading.Thread(target=search)
        worker.start()
        last, longest = time.perf_counter(), 0.0
        while worker.is_alive():
            now = time.perf_counter()
            longest, last = max(longest, now - last), now
        worker.join()
        self.assertGreater(call["s"], 0.05, "the search was too short to tell")
        self.assertLess(longest, call["s"] / 3)

    def test_commands_from_several_threads_give_the_same_answers(self):
        want = topoplan.plan(model="llama-3-8b", topology="hgx-h100-8", top=1).plans[0].tpot_ms
        got = []
        threads = [threading.Thread(target=lambda: got.append(topoplan.plan(
            model="llama-3-8b", topology="hgx-h100-8", top=1).plans[0].tpot_ms))
            for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(got, [want] * 3)


if __name__ == "__main__":
    warnings.simplefilter("error")
    unittest.main()
