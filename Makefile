# deskrun: the two commands are `make run` (install what is missing, build,
# serve sandboxes) and `make test` (every check CI runs).

GO       ?= go
BIN      := bin
ADDR     ?= 127.0.0.1:8080
PROVIDER ?= auto

.PHONY: run build deps test check unit bench images e2e clean

build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/ ./cmd/deskrun ./cmd/agentd

deps:
	scripts/install-deps.sh

# run installs what is missing, builds, and serves sandboxes on $(ADDR):
# on Docker where an engine answers, else on local processes.
run: deps build
	$(BIN)/deskrun serve --addr $(ADDR) --provider $(PROVIDER) --agentd $(BIN)/agentd

# test runs every check CI runs.
test: deps check unit

check:
	$(GO) vet ./...
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@before=$$(git status --porcelain; git diff | sha256sum); \
	$(GO) generate ./... && \
	after=$$(git status --porcelain; git diff | sha256sum); \
	if [ "$$before" != "$$after" ]; then echo "generated code is stale: run go generate ./... and commit"; exit 1; fi

unit:
	$(GO) test -race -count=1 ./...

# bench prints the side-by-side table (screenshots, pointer moves, typing
# fidelity against scrot, ImageMagick and xdotool), then, where a Docker
# engine answers, the sandbox figures: cold start, warm-pool acquire, idle
# memory and density.
bench: deps build
	$(GO) run -tags bench ./bench
	@if docker info >/dev/null 2>&1; then \
		$(MAKE) images && \
		TESTCONTAINERS_RYUK_DISABLED=true $(GO) test -tags e2e -run '^$$' -bench . -benchtime 1x -timeout 30m ./e2e/; \
	else echo "no Docker engine: sandbox benchmarks skipped"; fi

# images builds the sandbox images (and the base they start from) when
# missing or out of date; e2e runs the end-to-end tests on them.
images: build
	images/build.sh minimal desktop

e2e: images
	TESTCONTAINERS_RYUK_DISABLED=true $(GO) test -tags e2e -count=1 -timeout 30m ./e2e/

clean:
	rm -rf $(BIN)
