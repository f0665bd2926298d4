# ptxvm: one plain Makefile (STYLE.md §9).
#   make            library (build/libptxvm.a, build/libptxvm.so) and build/ptxvm
#   make test       every test (unit, front-end corpora, conformance), then the
#                   same under ASan+UBSan, and one pass of the unit tests and
#                   RUN files in the DEBUG=1 build; ends with "N passed, M failed"
#   make SAN=1      a sanitizer build in build-san/
#   make DEBUG=1    internal assertions (src/util/check.h), in build-debug/;
#                   with STRESS=1 also the stress switches (quantum 1, a seed), in build-stress/
#   make TSAN=1     a ThreadSanitizer build in build-tsan/
#   make tsan       the suite's multi-threaded launches under that build
#   make fuzz       the libFuzzer harnesses (clang): build-fuzz/fuzz_parse, fuzz_launch, fuzz_fatbin
#   make fuzz-long  the whole-path fuzzer for FUZZ_SECONDS (default 1800)
#   make test-clients     Numba, cuda-python, Triton, CuPy under ptxvm exec (pip, network)
#   make test-numba-suite numba-cuda's own test suite under ptxvm exec: pass rate, causes
#   make install    PREFIX (/usr/local) and DESTDIR: bin, lib (.so.MAJOR, .a),
#                   include, lib/pkgconfig/ptxvm.pc, lib/ptxvm (the CUDA driver
#                   and runtime, off the system's library path),
#                   share/man/man1/ptxvm.1 (made from docs/cli.md:
#                   scripts/gen_cli.py); make uninstall

CC      ?= cc
WARN    := -Wall -Wextra -Wshadow -Wpointer-arith -Wcast-qual -Wstrict-prototypes \
           -Wmissing-prototypes -Wwrite-strings -Wundef -Wformat=2 -Wvla \
           -Wconversion -Wdouble-promotion -Wmissing-declarations
# GCC's only (clang has no -Wlogical-op); check-clang uses $(WARN)
WARN_GCC := $(if $(findstring clang,$(shell $(CC) --version 2>/dev/null)),,-Wlogical-op)
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE -fPIC -ffp-contract=off $(WARN) $(WARN_GCC) -Iinclude
LDLIBS  += -lzstd -llz4 -lm -lpthread

ifeq ($(SAN),1)
  B := build-san
  CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=address,undefined
else ifeq ($(TSAN),1)
  B := build-tsan
  CFLAGS += -O1 -fsanitize=thread -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=thread
else ifeq ($(DEBUG),1)
  B := build-debug
  CFLAGS += -O0 -DPTXVM_DEBUG
  ifeq ($(STRESS),1)
    B := build-stress
    CFLAGS += -DPTXVM_STRESS
  endif
else
  B := build
endif

LIB_SRC := $(filter-out src/cuda/% src/cudart/%,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)

# the CUDA driver (src/cuda/, libcuda.so.1 over libptxvm.a): built where the
# toolkit's cuda.h is, the one header it is written against
CUDA_HOME ?= /usr/local/cuda
DRV_SRC := $(wildcard src/cuda/*.c)
DRV_OBJ := $(DRV_SRC:%.c=$(B)/%.o)
NVJITLINK_HIDDEN := $(B)/nvjitlink/libnvJitLink.so.13 $(B)/nvjitlink/libnvJitLink.so.12
ifneq ($(wildcard $(CUDA_HOME)/include/cuda.h),)
  DRIVER := $(B)/libcuda.so.1 $(B)/libcuda.so $(NVJITLINK_HIDDEN)
endif
# the CUDA runtime (src/cudart/, libcudart.so.13 over libcuda.so.1): built
# where the toolkit's cuda_runtime_api.h is
RT_SRC := $(wildcard src/cudart/*.c)
RT_OBJ := $(RT_SRC:%.c=$(B)/%.o)
ifneq ($(and $(DRIVER),$(wildcard $(CUDA_HOME)/include/cuda_runtime_api.h)),)
  RUNTIME := $(B)/libcudart.so.13 $(B)/libcudart.so
endif

all: $(B)/libptxvm.a $(B)/libptxvm.so $(B)/ptxvm $(B)/opcov $(UNIT_BIN) $(DRIVER) $(RUNTIME)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/libptxvm.a: $(LIB_OBJ)
	rm -f $@
	ar rcs $@ $^

# The version is the header's (PTXVM_VERSION_*); MAJOR is the soname.
version_part = $(shell sed -n 's/^\#define PTXVM_VERSION_$(1) *\([0-9]*\).*/\1/p' include/ptxvm.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION := $(VERSION_MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)

# Only the API leaves libptxvm.so: the library's objects are compiled with
# hidden visibility (ptxvm.h marks its declarations visible) and linked with a
# version script. The static archive keeps every symbol for the unit tests.
$(LIB_OBJ): CFLAGS += -fvisibility=hidden
$(B)/libptxvm.so: $(LIB_OBJ) src/ptxvm.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libptxvm.so.$(VERSION_MAJOR) \
	    -Wl,--version-script=src/ptxvm.map -o $@ $(LIB_OBJ) $(LDLIBS)

# what ptxvm run and gpurun share: the options and argument specs, kernel
# names (demangle.c), "did you mean" (suggest.c)
RUN_OBJ := $(B)/tools/runargs.o $(B)/tools/structarg.o $(B)/tools/tmaparg.o $(B)/tools/demangle.o $(B)/tools/suggest.o
$(B)/ptxvm: $(B)/tools/ptxvm.o $(RUN_OBJ) $(B)/tools/exec.o $(B)/tools/image.o \
            $(B)/tools/lowered.o $(B)/tools/schedules.o $(B)/libptxvm.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(DRV_OBJ): CFLAGS += -I$(CUDA_HOME)/include
# exports.map: only the cu* entry points leave the library
$(B)/libcuda.so.1: $(DRV_OBJ) $(B)/libptxvm.a src/cuda/exports.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcuda.so.1 -Wl,--version-script=src/cuda/exports.map \
	    -o $@ $(DRV_OBJ) $(B)/libptxvm.a $(LDLIBS)
$(B)/libcuda.so: $(B)/libcuda.so.1
	ln -sf libcuda.so.1 $@
# what `ptxvm exec` preloads to hide nvJitLink (tools/nvjitlink_hidden.c),
# once under nvJitLink 13's soname, once under 12's; never sanitized (it is
# preloaded into programs that are not)
$(B)/nvjitlink/libnvJitLink.so.%: tools/nvjitlink_hidden.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -fPIC -shared -Wl,-soname,libnvJitLink.so.$* -o $@ $<

$(RT_OBJ): CFLAGS += -I$(CUDA_HOME)/include
# exports.map: the toolkit's libcudart.so.13 symbols and versions
# (gen_entries.py); the driver beside it is found through $ORIGIN. Nothing
# of libptxvm: the runtime calls the driver's entry points only.
$(B)/libcudart.so.13: $(RT_OBJ) $(B)/libcuda.so.1 src/cudart/exports.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libcudart.so.13 -Wl,--version-script=src/cudart/exports.map \
	    -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $@ $(RT_OBJ) $(B)/libcuda.so.1 -lpthread
$(B)/libcudart.so: $(B)/libcudart.so.13
	ln -sf libcudart.so.13 $@

# gpurun: `ptxvm run` on a real GPU through the CUDA driver API, for ground
# truth (tests/gpu/README.md); needs cuda.h and libcuda, so not in `all`.
gpurun: $(B)/gpurun
$(B)/tools/gpurun.o: CFLAGS += -I$(CUDA_HOME)/include
$(B)/gpurun: $(B)/tools/gpurun.o $(RUN_OBJ) $(B)/libptxvm.a
	$(CC) $(LDFLAGS) -o $@ $^ -L$(CUDA_HOME)/lib64/stubs -lcuda $(LDLIBS)

# opcov: which opcodes.def rows execute (tools/opcov.c)
$(B)/opcov: $(B)/tools/opcov.o $(B)/libptxvm.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/tests/%: $(B)/tests/unit/%.o $(B)/libptxvm.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# the plain build and the ASan+UBSan build (build-san/), both checked by one
# run, which also fuzzes the whole path for a minute (build-fuzz/, clang) and
# makes one pass of the unit tests and RUN files in the DEBUG=1 build
# (build-debug/: the internal assertions; debug-unit:, debug-run:)
test: all
	@$(MAKE) --no-print-directory SAN=1 all
	@$(MAKE) --no-print-directory DEBUG=1 all
	@$(MAKE) --no-print-directory fuzz
	python3 tests/run.py --build $(B) --san-build build-san --debug-build build-debug

# the multi-threaded launches (the run: and cuda: tests of more than one
# cluster at -j 2, the unit tests, test_cancel among them, and every .ptx of
# the repository through fuzz_launch) under ThreadSanitizer; tests/tsan.supp
# explains what it suppresses (not in test: TSAN builds, then a few minutes)
tsan: all
	@$(MAKE) --no-print-directory TSAN=1 all
	@$(MAKE) --no-print-directory build-fuzz/tsan/fuzz_launch
	python3 tests/run.py --build $(B) --tsan-build build-tsan --only tsan-

# parse+validate speed and peak memory on a generated ~50 MB module (not in test)
bench-parse: all
	sh bench/parse/run.sh $(B)/ptxvm

demo: all
	$(B)/ptxvm run examples/reduce.ptx _Z6reducePKiPii -g 4 -b 256 \
	    -a 's32[1024]:iota' -a 's32[4]:zero' -a s32:1024 -o 1

# Fuzzing (libFuzzer, clang; tests/fuzz/README.md): the library once, with
# coverage and ASan+UBSan (any UB report is a crash), into build-fuzz/obj/;
# fuzz_parse: the front end alone, fuzz_launch: parse, lower and launch,
# fuzz_fatbin: the fatbin reader.
FUZZ_CC     ?= clang
FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -fPIC -ffp-contract=off -g -O1 -Iinclude $(FUZZ_SAN)
FUZZ_OBJ    := $(LIB_SRC:%.c=build-fuzz/obj/%.o)
FUZZ_SECONDS ?= 1800
build-fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@
# the run-time files' lane loops compare on every lane: tracing those compares
# (for libFuzzer's value profile) took 60% of the time; edges are still counted
build-fuzz/obj/src/exec/%.o build-fuzz/obj/src/sync/%.o build-fuzz/obj/src/mem/%.o: \
  FUZZ_CFLAGS += -fno-sanitize-coverage=trace-cmp
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ -lzstd -llz4 -lm -lpthread
fuzz: build-fuzz/fuzz_parse build-fuzz/fuzz_launch build-fuzz/fuzz_fatbin
# fuzz_launch under ThreadSanitizer, without coverage, to replay the seeds
# on two host threads (make tsan)
FUZZ_TSAN_OBJ := $(LIB_SRC:%.c=build-fuzz/tsan/%.o)
build-fuzz/tsan/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -fPIC -ffp-contract=off -g -O1 -Iinclude -fsanitize=thread \
	  -MMD -MP -c $< -o $@
build-fuzz/tsan/fuzz_launch: tests/fuzz/fuzz_launch.c $(FUZZ_TSAN_OBJ)
	$(FUZZ_CC) -std=c11 -D_GNU_SOURCE -g -O1 -Iinclude -fsanitize=fuzzer,thread -o $@ $^ -lzstd -llz4 -lm -lpthread
# the whole-path fuzzer for FUZZ_SECONDS (30 minutes) at low priority;
# prints executions, coverage and findings (tests/fuzz/fuzz.py)
fuzz-long: fuzz
	python3 tests/fuzz/fuzz.py --seconds $(FUZZ_SECONDS)

clean:
	rm -rf build build-san build-debug build-tsan build-fuzz

# install, uninstall: the GNU variables (PREFIX, DESTDIR, BINDIR, LIBDIR,
# INCLUDEDIR, MANDIR); ptxvm.pc's Libs.private are the libraries the library links.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
# the CUDA driver and runtime: in their own directory, where `ptxvm exec`
# finds them (../lib/ptxvm beside bin/ptxvm) and no other program does, so
# they never shadow a real driver
CUDALIBDIR ?= $(LIBDIR)/ptxvm
CUDA_INSTALL := $(if $(DRIVER),libcuda.so.1 libcuda.so nvjitlink/libnvJitLink.so.13 nvjitlink/libnvJitLink.so.12) \
                $(if $(RUNTIME),libcudart.so.13 libcudart.so)
INSTALL_FILES := $(addprefix $(CUDALIBDIR)/,$(CUDA_INSTALL)) $(MANDIR)/man1/ptxvm.1 $(BINDIR)/ptxvm $(LIBDIR)/libptxvm.so.$(VERSION) $(LIBDIR)/libptxvm.so.$(VERSION_MAJOR) \
                 $(LIBDIR)/libptxvm.so $(LIBDIR)/libptxvm.a $(INCLUDEDIR)/ptxvm.h $(LIBDIR)/pkgconfig/ptxvm.pc
install: $(B)/ptxvm $(B)/libptxvm.so $(B)/libptxvm.a src/ptxvm.pc.in $(DRIVER) $(RUNTIME) share/man/man1/ptxvm.1
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 644 share/man/man1/ptxvm.1 $(DESTDIR)$(MANDIR)/man1/ptxvm.1
	install -m 755 $(B)/ptxvm $(DESTDIR)$(BINDIR)/ptxvm
	install -m 755 $(B)/libptxvm.so $(DESTDIR)$(LIBDIR)/libptxvm.so.$(VERSION)
	ln -sf libptxvm.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libptxvm.so.$(VERSION_MAJOR)
	ln -sf libptxvm.so.$(VERSION_MAJOR) $(DESTDIR)$(LIBDIR)/libptxvm.so
	install -m 644 $(B)/libptxvm.a $(DESTDIR)$(LIBDIR)/libptxvm.a
	install -m 644 include/ptxvm.h $(DESTDIR)$(INCLUDEDIR)/ptxvm.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@LIBS_PRIVATE@|$(strip $(LDLIBS))|' \
	    src/ptxvm.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/ptxvm.pc
ifneq ($(DRIVER),)
	install -d $(DESTDIR)$(CUDALIBDIR)
	install -m 755 $(B)/libcuda.so.1 $(DESTDIR)$(CUDALIBDIR)/libcuda.so.1
	ln -sf libcuda.so.1 $(DESTDIR)$(CUDALIBDIR)/libcuda.so
	install -d $(DESTDIR)$(CUDALIBDIR)/nvjitlink
	install -m 755 $(NVJITLINK_HIDDEN) $(DESTDIR)$(CUDALIBDIR)/nvjitlink/
endif
ifneq ($(RUNTIME),)
	install -m 755 $(B)/libcudart.so.13 $(DESTDIR)$(CUDALIBDIR)/libcudart.so.13
	ln -sf libcudart.so.13 $(DESTDIR)$(CUDALIBDIR)/libcudart.so
endif
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALL_FILES))
	$(if $(DRIVER),-rmdir $(DESTDIR)$(CUDALIBDIR)/nvjitlink $(DESTDIR)$(CUDALIBDIR) 2>/dev/null)

# check-clang: the library and tools compile warning-free under clang too
# (run.py runs it where clang is installed; CI builds with gcc).
check-clang:
	@for f in $(LIB_SRC) tools/ptxvm.c tools/runargs.c tools/structarg.c tools/tmaparg.c tools/demangle.c tools/suggest.c tools/exec.c tools/image.c tools/lowered.c tools/schedules.c tools/opcov.c tools/nvjitlink_hidden.c; do \
	  clang -std=c11 -D_GNU_SOURCE $(WARN) -Werror -Iinclude -fsyntax-only $$f || exit 1; done
	@for f in $(if $(DRIVER),$(DRV_SRC)) $(if $(RUNTIME),$(RT_SRC)); do \
	  clang -std=c11 -D_GNU_SOURCE $(WARN) -Werror -Iinclude -I$(CUDA_HOME)/include -fsyntax-only $$f || exit 1; done

.PHONY: all test tsan bench-parse demo fuzz fuzz-long clean check-clang install uninstall

# Keep the unit tests' objects: as intermediates make would delete them, and a
# second make in the same tree then fails to link.
.SECONDARY:

-include $(FUZZ_OBJ:.o=.d) $(FUZZ_TSAN_OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(DRV_OBJ:.o=.d) $(RT_OBJ:.o=.d) $(UNIT_SRC:%.c=$(B)/%.d) $(B)/tools/ptxvm.d $(B)/tools/runargs.d $(B)/tools/structarg.d $(B)/tools/tmaparg.d $(B)/tools/demangle.d $(B)/tools/suggest.d $(B)/tools/exec.d $(B)/tools/image.d $(B)/tools/lowered.d $(B)/tools/schedules.d $(B)/tools/opcov.d

# The Python clients (tests/clients/README.md; not in test: they install from
# PyPI): a virtual environment under build/ with numba-cuda, cuda-python,
# cuda-core, Triton and CuPy (CLIENTS_PKGS), then each client's test under
# ptxvm exec; test-numba-suite runs numba-cuda's own suite and prints its
# pass rate and failure causes (NUMBA_SUITE_FLAGS=--isolate: each test module
# in its own process).
CLIENTS_PYTHON ?= python3
CLIENTS_VENV   := $(B)/clients-venv
CLIENTS_PKGS   ?= numba-cuda[cu13] cuda-python cuda-core numpy triton cupy-cuda13x \
                  filecheck cffi psutil ml_dtypes pytest
$(CLIENTS_VENV)/installed:
	$(CLIENTS_PYTHON) -m venv $(CLIENTS_VENV)
	$(CLIENTS_VENV)/bin/python -m pip install -q $(CLIENTS_PKGS)
	$(CLIENTS_VENV)/bin/python -m pip freeze > $@
test-clients: all $(CLIENTS_VENV)/installed
	python3 tests/clients/run.py --build $(B) --python $(CLIENTS_VENV)/bin/python
test-numba-suite: all $(CLIENTS_VENV)/installed
	python3 tests/clients/numba_suite.py --build $(B) --python $(CLIENTS_VENV)/bin/python $(NUMBA_SUITE_FLAGS)
.PHONY: test-clients test-numba-suite

# workload benchmarks W1-W7 (bench/run.py; not in test): table in bench/out/results.md;
# W1-W3 also in OpenCL under PoCL (bench/ocl/, its deps.sh installs PoCL), by
# the host program build/ocl_bench
bench:
	sh bench/run.sh
.PHONY: bench

build/ocl_bench: bench/ocl/host.c bench/ref/splitmix.h bench/ref/timing.h
	@mkdir -p build
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -Wall -Wextra -o $@ bench/ocl/host.c -lOpenCL

# CUTLASS 3 sm90 and 2.x sm80 GEMMs under ptxvm exec (tests/cutlass/run.sh; nvcc and
# CUTLASS's headers, minutes of nvcc: not in test)
cutlass-test: all
	sh tests/cutlass/run.sh $(B)
.PHONY: cutlass-test
