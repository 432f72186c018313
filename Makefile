# The two set-up commands: `make demo` and `make test`. Everything else is a convenience.
JOBS ?= $(shell nproc)
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
BUILD_RELEASE := build/release
BUILD_TEST := build/test
BUILD_FUZZ := build/fuzz
# Runs of each fuzz target in `make fuzz`, a few thousand mutations per file format.
FUZZ_RUNS ?= 8000

.PHONY: demo test build bootstrap release test-build fuzz format clean

bootstrap:
	bash scripts/bootstrap.sh

release: bootstrap
	cmake -S . -B $(BUILD_RELEASE) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Release -DHETSCHED_BUILD_TESTS=OFF
	cmake --build $(BUILD_RELEASE) -j $(JOBS)

build: release

demo: release
	$(BUILD_RELEASE)/hetsched simulate

# The test suite runs under AddressSanitizer and UndefinedBehaviorSanitizer, then a bounded
# libFuzzer run over the parser of every file format the CLI reads.
test-build: bootstrap
	cmake -S . -B $(BUILD_TEST) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DHETSCHED_SANITIZE=ON -DHETSCHED_BUILD_BENCH=OFF
	cmake --build $(BUILD_TEST) -j $(JOBS)

# Two more test processes than cores: the browser, service and Slurm tests spend much of their
# time waiting on other processes, and the extra ones fill that time.
CTEST_JOBS ?= $(shell echo $$(( $(JOBS) + 2 )))

test: test-build fuzz
	cd $(BUILD_TEST) && ctest --output-on-failure -j $(CTEST_JOBS)

# One libFuzzer target per file format (fuzz/<name>_fuzz.cpp), each with a corpus of its own
# in build/fuzz/corpus/<name>: seeds/, the repository's valid files of that format, and
# found/, the inputs the run adds. Every run starts again from the seeds, so it takes the same
# time every time (about a minute for all of them); an input that fails is saved as
# build/fuzz/<name>-crash-<hash> (or -leak-, -timeout-, -oom-).
# The targets are the files of fuzz/; each names its seeds here (a target without seeds stops
# the run), and scripts/checks/fuzz_targets.sh checks that every document parser has a target.
FUZZ_TARGETS := $(patsubst fuzz/%_fuzz.cpp,%,$(sort $(wildcard fuzz/*_fuzz.cpp)))
FUZZ_SEEDS_config_parser := $(wildcard examples/*.yaml examples/*.json)
FUZZ_SEEDS_stream_workload := examples/stream_small.yaml examples/stream_gavel_generated.yaml
FUZZ_SEEDS_fault_file := fuzz/seeds/fault_file.yaml
FUZZ_SEEDS_cost_matrix := examples/topcuoglu.yaml
FUZZ_SEEDS_wfcommons := $(wildcard data/wfcommons/*.json)
FUZZ_SEEDS_pegasus_dax := $(wildcard data/pegasus/*.xml)
FUZZ_SEEDS_runtime_dag := examples/runtime_dag.yaml
FUZZ_SEEDS_stream_submission := examples/stream_small.yaml
FUZZ_SEEDS_gavel_trace := data/gavel/msr_seed_0_23dbec.trace data/gavel/physical_cluster_small_test.trace
FUZZ_SEEDS_alibaba_trace := fuzz/seeds/alibaba_nodes.csv fuzz/seeds/alibaba_pods.csv
FUZZ_SEEDS_policy_network := fuzz/seeds/policy_network.json
FUZZ_SEEDS_kube_objects := $(wildcard tests/service/kube/*.json)
# Inputs up to 4 KiB, except where the seeds are longer (a seed longer than -max_len would be
# cut short and no longer parse): real workflows of 6 to 110 KiB and kube-scheduler's requests
# (up to 11 KiB).
FUZZ_MAX_LEN_wfcommons := 131072
FUZZ_MAX_LEN_pegasus_dax := 32768
FUZZ_MAX_LEN_kube_objects := 16384

define fuzz_target
	$(if $(FUZZ_SEEDS_$(1)),,$(error fuzz/$(1)_fuzz.cpp has no seeds: set FUZZ_SEEDS_$(1) in the Makefile))
	rm -rf $(BUILD_FUZZ)/corpus/$(1) && mkdir -p $(BUILD_FUZZ)/corpus/$(1)/seeds $(BUILD_FUZZ)/corpus/$(1)/found
	cp $(FUZZ_SEEDS_$(1)) $(BUILD_FUZZ)/corpus/$(1)/seeds/
	$(BUILD_FUZZ)/$(1)_fuzz -runs=$(FUZZ_RUNS) -max_len=$(or $(FUZZ_MAX_LEN_$(1)),4096) -timeout=10 \
	  -artifact_prefix=$(BUILD_FUZZ)/$(1)- $(BUILD_FUZZ)/corpus/$(1)/found $(BUILD_FUZZ)/corpus/$(1)/seeds

endef

fuzz: bootstrap
	CXX=clang++-14 cmake -S . -B $(BUILD_FUZZ) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETSCHED_FUZZ=ON -DHETSCHED_BUILD_TESTS=OFF -DHETSCHED_BUILD_BENCH=OFF
	cmake --build $(BUILD_FUZZ) -j $(JOBS) $(foreach t,$(FUZZ_TARGETS),--target $(t)_fuzz)
	$(foreach t,$(FUZZ_TARGETS),$(call fuzz_target,$(t)))

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf build
