# The two set-up commands: `make demo` and `make test`. Everything else is a convenience.
JOBS ?= $(shell nproc)
CMAKE_GEN := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
BUILD_RELEASE := build/release
BUILD_TEST := build/test
BUILD_FUZZ := build/fuzz
FUZZ_RUNS ?= 20000

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
# libFuzzer run over the cluster and workload parsers.
test-build: bootstrap
	cmake -S . -B $(BUILD_TEST) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=Debug -DHETSCHED_SANITIZE=ON -DHETSCHED_BUILD_BENCH=OFF
	cmake --build $(BUILD_TEST) -j $(JOBS)

test: test-build fuzz
	cd $(BUILD_TEST) && ctest --output-on-failure -j $(JOBS)

fuzz: bootstrap
	CXX=clang++-14 cmake -S . -B $(BUILD_FUZZ) $(CMAKE_GEN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETSCHED_FUZZ=ON -DHETSCHED_BUILD_TESTS=OFF -DHETSCHED_BUILD_BENCH=OFF
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target config_parser_fuzz
	mkdir -p $(BUILD_FUZZ)/corpus && cp -n examples/*.yaml $(BUILD_FUZZ)/corpus/ 2>/dev/null || true
	$(BUILD_FUZZ)/config_parser_fuzz -runs=$(FUZZ_RUNS) -max_len=4096 -timeout=10 $(BUILD_FUZZ)/corpus

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf build
