# catalogd-ts developer commands. `make help` lists them.
# Every node/npm call runs on Node >= 22.19 (hack/node.sh finds one or installs Node 24 into a cache).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

WITH_NODE = PATH="$$(hack/node.sh)":"$$PATH"
LOCAL := .local
# The node of the local cluster: `make cluster-up NODE=1`. The scripts read CATALOGD_NODE, not
# NODE: npm sets NODE (to its node binary) in every script it runs, which the e2e hooks are.
ifeq ($(origin NODE),command line)
export CATALOGD_NODE := $(NODE)
endif
# The catalogd-ts image tag of `make image` and `make deploy`.
TAG ?= local
# The object view `make deploy` installs: crd (CatalogMetadata CRD) or served (config/served).
VIEW ?= crd

##@ General
.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z0-9_-]+:.*##/ {printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2} /^##@/ {printf "\n%s\n", substr($$0, 5)}' $(MAKEFILE_LIST)

##@ Development
node_modules/.installed: package.json package-lock.json
	$(WITH_NODE) npm ci --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: deps
deps: node_modules/.installed ## Install Node 24 (if needed) and the npm dependencies.

.PHONY: build
build: deps ## Compile TypeScript to dist/ (the `catalogd` bin).
	$(WITH_NODE) npm run --silent build
	@chmod +x dist/src/cmd/catalogd.js dist/src/plugin/kubectl-catalog.js

.PHONY: generate
generate: deps ## Regenerate generated files (CRDs from the API types).
	$(WITH_NODE) npx tsx hack/gen-crds.ts

.PHONY: fmt
fmt: deps ## Format the code with prettier.
	$(WITH_NODE) npm run --silent fmt

.PHONY: lint
lint: deps ## Typecheck, lint (typescript-eslint, type-checked rules) and check formatting.
	$(WITH_NODE) npm run --silent typecheck
	$(WITH_NODE) npm run --silent lint
	$(WITH_NODE) npm run --silent fmt:check

.PHONY: verify
verify: generate lint ## Regenerate generated files, fail on any diff, and lint.
	@hack/verify-clean.sh crds config/crd hack/controlplane hack/coredns

.PHONY: run
run: build controlplane ## Local cluster + registry (unless KUBECONFIG is set), sample catalog, controller in the foreground; ARGS="--flag value" passes flags.
	hack/run.sh $(ARGS)

##@ Tests
# `make test` always runs the local cluster with its node (NODE=1: hack/cluster-node.sh), and
# ends by stopping the cluster and checking that nothing of it is left (a recorded check).
.PHONY: test
test: deps controlplane ## Install everything and run all checks: verify, unit tests, e2e against a local cluster with a node, cluster left clean.
	@rm -rf $(LOCAL)/test-results
	@status=0; \
	hack/record-check.sh verify $(MAKE) --no-print-directory verify || status=1; \
	$(MAKE) --no-print-directory test-unit || status=1; \
	$(MAKE) --no-print-directory test-e2e || status=1; \
	hack/record-check.sh cluster-down-clean $(MAKE) --no-print-directory cluster-down-check || status=1; \
	exit $$status
test: export CATALOGD_NODE := 1

.PHONY: test-unit
test-unit: deps ## Run the unit tests (no cluster).
	$(WITH_NODE) npm run --silent test:unit

.PHONY: test-e2e
test-e2e: deps controlplane chromium cosign olmv1 operator-controller ## Run the e2e tests (starts a local control plane unless one is running).
	$(WITH_NODE) npm run --silent test:e2e

.PHONY: bench
bench: build controlplane ## Run the benchmarks (SPEC §7); writes bench/results/latest.json
	$(WITH_NODE) npx tsx bench/run.ts

.PHONY: bench-peer
bench-peer: build controlplane olmv1 ## catalogd-ts beside upstream catalogd v1.5.1 (bench/README.md "Peer"); BENCH_PEER_ROUNDS=3
	BENCH_ONLY=peer $(WITH_NODE) npx tsx bench/run.ts

.PHONY: bench-serve
bench-serve: build ## The content server against upstream's way of serving (bench/serve.ts; no cluster)
	$(WITH_NODE) npx tsx bench/serve.ts

.PHONY: cosign
cosign: ## Build (once, cached outside the repo) the cosign the signature e2e tests sign with.
	@hack/cosign.sh >/dev/null

.PHONY: olmv1
olmv1: ## Build (once, cached outside the repo) operator-controller, upstream catalogd v1.5.1, hack/olmv1-check and hack/informer-check (docs/olmv1.md).
	@hack/olmv1/build.sh >/dev/null

.PHONY: upstream-catalogd
upstream-catalogd: ## Build (once, cached outside the repo) upstream catalogd v1.11 alone, for the GraphQL comparison and bench (docs/graphql.md).
	@hack/upstream-catalogd/build.sh >/dev/null

.PHONY: operator-controller
operator-controller: ## Build (once, cached outside the repo) operator-controller v1.5.1 alone, for its image in the OLM v1 e2e (hack/olmv1/image.sh).
	@hack/olmv1/build.sh --image >/dev/null

.PHONY: chromium
chromium: ## Install Debian's chromium for the browser e2e tests (kubectl catalog ui), when missing.
	@hack/chromium.sh

##@ Local cluster
.PHONY: controlplane
controlplane: ## Build (once, cached outside the repo) etcd, kube-apiserver, kube-controller-manager, kubectl (NODE=1: and the node's binaries).
	@hack/controlplane/build.sh >/dev/null

.PHONY: controlplane-gomod
controlplane-gomod: ## Regenerate the control plane's go.mod pins from hack/versions.env.
	hack/controlplane/gen-gomod.sh

.PHONY: cluster-up
cluster-up: controlplane ## Start etcd, kube-apiserver, kube-controller-manager and a registry (NODE=1: and a node); write .local/env.
	hack/cluster.sh up
	@cat $(LOCAL)/env

.PHONY: node-up
node-up: export CATALOGD_NODE := 1
node-up: cluster-up ## cluster-up with the node: scheduler, kubelet, containerd, kube-proxy, CoreDNS (root).

.PHONY: image
image: ## Build the Containerfile with buildah (base stand-in: hack/base-image.sh) and push it to the local registry as catalogd-ts:$(TAG).
	hack/image.sh $(TAG)

.PHONY: deploy
deploy: export CATALOGD_NODE := 1
deploy: controlplane ## Cluster with its node, `make image`, then config/default (2 replicas, overlay in .local/deploy) on the node; VIEW=served: the served mode.
	hack/cluster.sh up
	hack/image.sh $(TAG) >/dev/null
	CATALOGD_VIEW=$(VIEW) hack/deploy.sh $(TAG)

.PHONY: cluster-down
cluster-down: ## Stop everything cluster-up started (the node too).
	hack/cluster.sh down

.PHONY: cluster-down-check
cluster-down-check: cluster-down ## Stop the cluster and fail if any process, mount, interface or nftables table of it is left.
	hack/cluster.sh check-clean

.PHONY: clean
clean: ## Remove build output (not the binary caches).
	rm -rf dist $(LOCAL)/test-results
