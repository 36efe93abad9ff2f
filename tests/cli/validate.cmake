# CLI tests of `topoplan validate` / `calibrate` and `--calibration` (owned by cmd_validate.cpp).
set(logs ${PROJECT_SOURCE_DIR}/topologies/samples/nccl-tests)
topoplan_cli_test(validate_h100_nvls ARGS validate --topology hgx-h100-8
                  --nccl-tests ${logs}/h100-8-all_reduce_nvls.log
                  EXPECT_STDOUT "all-reduce  1073741824    out      3914.70 .*nvls/Simple.*all +4 +4\\.[0-9]%")
topoplan_cli_test(validate_json ARGS validate --topology hgx-h100-8 --algo ring --json
                  --nccl-tests ${logs}/h100-8-all_reduce_ring.log
                  EXPECT_STDOUT "\"median_abs_rel_error\": 0\\.02")
# --op only names the test of a log that does not say; this log says all_reduce_perf.
topoplan_cli_test(validate_op_from_log ARGS validate --topology hgx-h100-8 --op all-gather
                  --nccl-tests ${logs}/h100-8-all_reduce_nvls.log
                  EXIT 0 EXPECT_STDOUT "all-reduce")
topoplan_cli_test(validate_missing_log ARGS validate --topology hgx-h100-8 --nccl-tests nope.log
                  EXIT 2 EXPECT_STDERR "nope.log")
# Ring all-reduce on 8 ranks moves 2 x 7/8 of the buffer over each GPU's 450 GB/s NVLink bundle:
# eff = 1.75 S / ((t - 56 us model latency) x 450e3 B/us); 2 GiB at 10226.1 us gives 0.821,
# 4 GiB at 20452.2 us 0.819; the size-weighted least squares through the fixed intercept 0.819.
topoplan_cli_test(calibrate_stdout ARGS calibrate --topology hgx-h100-8 --algo ring
                  --nccl-tests ${logs}/h100-8-all_reduce_ring.log
                  EXPECT_STDOUT "\"nvlink4\": 0\\.819")
topoplan_cli_test(collective_bad_calibration ARGS collective all-reduce --topology hgx-h100-8
                  --size 1GiB --calibration ${logs}/a100-8-all_reduce_1g.log EXIT 2
                  EXPECT_STDERR "a100-8-all_reduce_1g.log")
# --calibration: topologies/samples/calibration/hgx-h100-8-ring.json is `topoplan calibrate` of
# the ring log above (nvlink4 efficiency 0.844 -> 0.819). The 4 GiB ring all-reduce then predicts
# 20441 us / 367.7 busbw against the log's 20452.2 us / 367.5 (0.06%); built-in: 378.7 (+3%).
set(calib ${PROJECT_SOURCE_DIR}/topologies/samples/calibration/hgx-h100-8-ring.json)
topoplan_cli_test(collective_calibrated ARGS collective all-reduce --topology hgx-h100-8
                  --size 4GiB --algo ring --calibration ${calib}
                  EXPECT_STDOUT "20441\\.[0-9]+ +210\\.1[0-9] +367\\.7")
topoplan_cli_test(plan_calibrated ARGS plan --model llama-3-70b --topology hgx-h100-8
                  --calibration ${calib} EXPECT_STDOUT "Best: ")
topoplan_cli_test(validate_calibrated ARGS validate --topology hgx-h100-8 --algo ring
                  --calibration ${calib} --nccl-tests ${logs}/h100-8-all_reduce_ring.log
                  EXPECT_STDOUT "all +2 +0\\.[0-9]%")
# validate --probe on the committed H200 probe run (topologies/calibration/probe-h200-2026-12-03.json):
# the host link row compares 55.2 GB/s measured h2d with pcie5 x16 x 0.8125 = 52.0 GB/s (-5.8%).
topoplan_cli_test(validate_probe ARGS validate --probe
                  ${PROJECT_SOURCE_DIR}/topologies/calibration/probe-h200-2026-12-03.json
                  EXPECT_STDOUT "gpu 0 +55\\.2 +55\\.1 +52\\.0 +-5\\.8%")
topoplan_cli_test(validate_probe_missing ARGS validate --probe nope.json EXIT 2
                  EXPECT_STDERR "nope.json")
# The probe's NCCL sweeps are nccl-tests logs inside its JSON: validate and calibrate read them
# like --nccl-tests files. tests/data/probe-h100-8-ring.json embeds the ring log above, so the fit
# is the same 0.819 as calibrate_stdout, and validate gives the same 2 rows.
topoplan_cli_test(calibrate_probe ARGS calibrate --probe ${PROJECT_SOURCE_DIR}/tests/data/probe-h100-8-ring.json
                  --topology hgx-h100-8 --algo ring EXPECT_STDOUT "\"nvlink4\": 0\\.819")
# Issue 28: the probe's own NCCL_NVLS_ENABLE=0 is honoured without --no-nvls (NVLS's efficiency
# was fitted from ring rows before).
topoplan_cli_test(calibrate_probe_nvls_off ARGS calibrate --probe
                  ${PROJECT_SOURCE_DIR}/tests/data/probe-h100-8-ring.json --topology hgx-h100-8
                  EXPECT_STDERR "NCCL_NVLS_ENABLE=0: NVLS left out"
                  EXPECT_STDOUT "\"algorithm\": \"ring\"")
topoplan_cli_test(validate_probe_nccl ARGS validate --probe ${PROJECT_SOURCE_DIR}/tests/data/probe-h100-8-ring.json
                  --topology hgx-h100-8 --algo ring EXPECT_STDOUT "all-reduce +2 +2\\.8%")
# A one-GPU probe has only one-rank NCCL smoke runs: skipped, and a topology check has nothing.
topoplan_cli_test(calibrate_probe_one_rank ARGS calibrate --probe
                  ${PROJECT_SOURCE_DIR}/topologies/calibration/nccl-1rank-smoke-h200-2026-12-03.json
                  --topology hgx-h200-8 EXIT 2 EXPECT_STDERR "no NCCL runs over 2 or more GPUs")
# Calibrate never worsens the fitted rows (issue 28): on tests/comm/data/h100-8-all_reduce_naive_fit.log
# the ring/LL latency its intercept asks for (6.6 -> 8.6 us) takes the worst fitted row from
# +26.2% to +31.5%, so it is refused; the NVLS efficiency (0.85 -> 0.739) is kept. 31 sizes: the
# 4th, 8th, ... 28th (7) are held out.
topoplan_cli_test(calibrate_never_worse ARGS calibrate --topology hgx-h100-8
                  --nccl-tests ${PROJECT_SOURCE_DIR}/tests/comm/data/h100-8-all_reduce_naive_fit.log
                  -o calib_naive_fit.json
                  EXPECT_STDOUT "nvls_efficiency/2 +0\\.85 +0\\.7391 +yes.*base_latency_us/ring/LL +6\\.6 +8\\.6 +no \\(error grows\\) +26\\.2% -> 31\\.5%.*held out .*fitted rows 24: median \\|err\\| 11\\.8% -> 9\\.2%, worst \\+26\\.2% -> \\+26\\.2%\nheld out rows 7:")
# Calibrating one GPU's constants from another GPU's log is refused; validate says it compares
# different GPUs (issue 28: calibrate wrote nvls_efficiency 0.39 for H100 from an A100 log).
topoplan_cli_test(calibrate_other_gpu_refused
                  ARGS calibrate --topology hgx-h100-8
                       --nccl-tests ${PROJECT_SOURCE_DIR}/topologies/samples/nccl-tests/a100-8-all_reduce_1g.log
                  EXIT 2 EXPECT_STDERR "the log ran on 'NVIDIA A100-SXM4-40GB', the topology's GPUs are H100-SXM")
topoplan_cli_test(validate_other_gpu_note
                  ARGS validate --topology hgx-h100-8
                       --nccl-tests ${PROJECT_SOURCE_DIR}/topologies/samples/nccl-tests/a100-8-all_reduce_1g.log
                  EXPECT_STDERR "note: .*the errors below compare different GPUs")
