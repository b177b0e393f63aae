# deskrun: the two commands are `make run` (install what is missing, build,
# serve sandboxes) and `make test` (every check CI runs).

GO       ?= go
BIN      := bin
ADDR     ?= 127.0.0.1:8080
PROVIDER ?= auto

.PHONY: run build deps test check check-loaded unit python bench soak images e2e e2e-if-docker e2e-kube e2e-kube-if-able clean

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/ ./cmd/deskrun ./cmd/agentd

deps:
	scripts/install-deps.sh

# run installs what is missing, builds, and serves sandboxes on $(ADDR).
# Where a Docker engine answers (and PROVIDER is auto or docker), it builds
# the images (the base made locally when no registry answers) and brings
# up docker-compose.yml in the foreground: deskrun in a container starting
# sandbox containers beside itself. Elsewhere, or with PROVIDER=local, it
# serves local sandboxes (Xvfb + agentd processes) from this machine.
# Compose needs a token: DESKRUN_TOKEN, or one made up and printed.
run: deps build
	@if [ "$(PROVIDER)" != local ] && docker info >/dev/null 2>&1; then \
		images/build.sh minimal desktop deskrun && \
		scripts/compose-up.sh $(ADDR); \
	else \
		$(BIN)/deskrun serve --addr $(ADDR) --provider $(PROVIDER) --agentd $(BIN)/agentd; \
	fi

# test runs every check CI runs: vet, gofmt, generated-code drift, the unit
# and integration tests (real Xvfb, real agentd), and, where a Docker
# engine answers, the sandbox images (built when missing or stale) and the
# end-to-end tests on real containers, then, as root, the kube provider's
# end-to-end tests on a one-node cluster (e2e-kube). The images build in
# the background while check, unit and python run (on a fresh machine
# most of their time is apt fetching and unpacking, beside tests that
# hold on a busy machine); their log is $(BIN)/images.log.
test: deps build
	@bg=; mkdir -p $(BIN); \
	if docker info >/dev/null 2>&1; then \
		echo "images: building in the background (log: $(BIN)/images.log)"; \
		images/build.sh minimal desktop osworld deskrun >$(BIN)/images.log 2>&1 & bg=$$!; \
	fi; \
	trap 'if [ -n "$$bg" ]; then kill $$bg 2>/dev/null; fi' EXIT; \
	$(MAKE) check unit python || exit 1; \
	if [ -n "$$bg" ]; then \
		if ! wait $$bg; then echo "images: build failed:"; tail -50 $(BIN)/images.log; exit 1; fi; \
		bg=; echo "images: built"; \
	fi; \
	$(MAKE) e2e-if-docker e2e-kube-if-able

check:
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@before=$$(git status --porcelain; git diff | sha256sum); \
	$(GO) generate ./... && \
	after=$$(git status --porcelain; git diff | sha256sum); \
	if [ "$$before" != "$$after" ]; then echo "generated code is stale: run go generate ./... and commit"; exit 1; fi

# check-loaded is the busy-machine check of the timing-sensitive tests:
# make check, then agentd's and x11's tests with -race three times, with
# one busy loop per core beside them (LOAD=n for another count).
LOAD ?= $(shell nproc)
check-loaded: check
	@pids=""; for i in $$(seq $(LOAD)); do sh -c 'while :; do :; done' & pids="$$pids $$!"; done; \
	trap 'kill $$pids' EXIT; \
	$(GO) test -race -count=3 -timeout 60m ./agentd/ ./x11/...

# The metric package runs without -race: its oracle grades 12,620 cases
# (about a minute of CPU, ten times that under the race detector) through
# functions of values with one deadline goroutine, which the other
# packages' tests run under -race.
unit:
	$(GO) test -race -count=1 -timeout 30m $$($(GO) list ./... | grep -v '/runner/task/metric$$')
	$(GO) test -count=1 -timeout 30m ./runner/task/metric/

# python checks the Python client (clients/python) with Debian's python3
# (not a python3 earlier on PATH, which lacks Debian's packages): the sync
# client and docs/python.md regenerated without drift, mypy --strict on the
# package and examples/python, and its pytest suite against a real deskrun
# serve --provider local (both clients, the examples, an offline pip install).
PYTHON ?= /usr/bin/python3
python: build
	cd clients/python && $(PYTHON) scripts/unasync.py --check && $(PYTHON) scripts/gendoc.py --check
	cd clients/python && MYPYPATH=. $(PYTHON) -m mypy --strict --cache-dir=/dev/null deskrun ../../examples/python
	cd clients/python && DESKRUN_BIN=$(CURDIR)/$(BIN) $(PYTHON) -m pytest -q -p no:cacheprovider tests

# bench prints the side-by-side table (screenshots, pointer moves, typing
# fidelity against scrot, ImageMagick and xdotool, accessibility trees: a
# Chromium page of 1,163 objects as OSWorld's XML and as the element list
# read by AT-SPI's walk and through DevTools side by side, a GTK window, a
# LibreOffice Calc window where one is installed, 16 readers at once), the
# shipped task suite replayed at parallel 1, 4 and 8 on local sandboxes,
# the live view (the agent's screenshot with 0 and 3 viewers; Raw, Tight
# and ZRLE side by side on typing, scrolling in Chromium and LibreOffice
# Calc at 1920x1080: bytes per frame and per second, agentd's CPU per
# viewer, a full frame), the browser (navigate
# to a local page, browser_view of 1,000 elements, click to event), OSWorld's reset (a
# fresh osworld session, an OSWorld-format task's setup, the first
# screenshot) on local sandboxes, E2B's front (create to first command
# beside deskrun's own API, echo and a 1 MiB file round trip), the CPU a
# recorded sandbox costs (idle and typing, three runs), the metric calls on their fixtures
# (runner/task and runner/task/metric, five runs each), then, where a Docker
# engine answers, the sandbox figures: cold start, warm-pool acquire, idle
# memory and density, cold start, screenshot, density and memory per
# sandbox under gVisor (runsc) beside runc where the engine has it, and on
# the osworld image its cold start, OSWorld's reset, the density of
# sandboxes with LibreOffice Calc open and the accessibility trees
# (BenchmarkA11y: the page both ways, uncached and as an agent reads it
# after typing, with agentd's Server-Timing parts; Calc's whole tree).
bench: deps build
	$(GO) run -tags bench ./bench
	$(GO) test -run '^$$' -bench Suite -benchtime 1x ./runner/farm/
	$(GO) test -run '^$$' -bench ActionToSettled -benchtime 10x ./agentd/
	$(GO) test -run '^$$' -bench . -benchtime 20x ./agentd/browser/
	$(GO) test -run '^$$' -bench VNC -benchtime 50x -count 5 ./agentd/
	$(GO) test -run '^$$' -bench LiveView -benchtime 1x -count 3 ./agentd/
	$(GO) test -run '^$$' -bench RecordingCPU -benchtime 1x -count 3 ./agentd/
	$(GO) test -run '^$$' -bench Reset -benchtime 20x ./server/osworld/
	$(GO) test -run '^$$' -bench . -benchtime 20x ./server/e2b/
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 5 ./runner/task/ ./runner/task/metric/
	@if docker info >/dev/null 2>&1; then \
		$(MAKE) images && \
		TESTCONTAINERS_RYUK_DISABLED=true $(GO) test -tags e2e -run '^$$' -bench . -benchtime 1x -timeout 30m ./e2e/; \
	else echo "no Docker engine: sandbox benchmarks skipped"; fi

# soak holds 16 sessions of deskrun serve under load for SOAK (10m) with
# task suite runs beside them, killing agentd, Xvfb or a whole sandbox or
# pausing one at random every few seconds, and fails on any call answered
# late, with a 500, or on a session without a fault, on a run's result
# missing or doubled, and on anything left after (goroutines, memory
# growth over 10%, processes, containers, networks, temporary folders).
# Local sandboxes; PROVIDER=docker runs it on containers (make images
# first). make test runs a 45 s soak of each.
SOAK ?= 10m
soak: build
	@if [ "$(PROVIDER)" = docker ]; then \
		TESTCONTAINERS_RYUK_DISABLED=true DESKRUN_SOAK=$(SOAK) $(GO) test -tags e2e -count=1 -v -run '^TestSoakDocker$$' -timeout 3h ./e2e/; \
	else \
		DESKRUN_SOAK=$(SOAK) $(GO) test -count=1 -v -run '^TestSoak$$' -timeout 3h ./cmd/deskrun/; \
	fi

# images builds the sandbox images (and the base they start from) when
# missing or out of date; e2e runs the end-to-end tests on them, and the
# Python client's (clients/python/tests/test_docker.py) on a desktop session.
images: build
	images/build.sh minimal desktop osworld

e2e: images
	TESTCONTAINERS_RYUK_DISABLED=true $(GO) test -tags e2e -count=1 -timeout 70m ./e2e/
	cd clients/python && DESKRUN_TEST_DOCKER_IMAGE=deskrun/desktop:latest DESKRUN_BIN=$(CURDIR)/$(BIN) $(PYTHON) -m pytest -q -p no:cacheprovider tests/test_docker.py

# e2e-kube runs the kube provider's end-to-end tests on a one-node cluster it
# brings up from Kubernetes built from its Go modules (cached by version)
# and Debian's etcd, containerd, runc and CNI plugins; needs root, and
# builds the images it needs (deskrun/minimal, deskrun/deskrun; built when missing
# or stale). The first run builds Kubernetes (about 14 CPU-minutes).
e2e-kube:
	scripts/kube/e2e.sh

e2e-kube-if-able:
	@if [ "$$(id -u)" = 0 ] && docker info >/dev/null 2>&1; then $(MAKE) e2e-kube; \
	else echo "not root or no Docker engine: the kube provider's end-to-end tests skipped"; fi

e2e-if-docker:
	@if docker info >/dev/null 2>&1; then $(MAKE) e2e; \
	else echo "no Docker engine answers: end-to-end tests on containers skipped"; fi

clean:
	rm -rf $(BIN)
