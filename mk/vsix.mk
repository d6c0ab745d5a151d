# The VS Code extension as an installable package, kept under build/ (ignored):
# `make vsix` -> build/modelcheck-VERSION.vsix.  Needs node and npm, and the
# npm registry the first time (npm ci).

VSCODE_DIR   := editors/vscode
VSIX_VERSION := $(shell $(PYTHON) -c "import json; print(json.load(open('$(VSCODE_DIR)/package.json'))['version'])" 2>/dev/null)
VSIX         := build/modelcheck-$(VSIX_VERSION).vsix
# vsce is a devDependency in package-lock.json, so npm ci installs it with
# its whole tree pinned: `npx @vscode/vsce@3` resolved a fresh tree on each
# clean machine, and one such tree lacked a module vsce requires.
VSCE         ?= ./node_modules/.bin/vsce
VSIX_SOURCES := $(filter-out $(VSCODE_DIR)/node_modules/%,$(shell find $(VSCODE_DIR) -path $(VSCODE_DIR)/node_modules -prune -o -type f -print 2>/dev/null))

.PHONY: vsix

vsix: $(VSIX)

$(VSIX): $(VSIX_SOURCES)
	cd $(VSCODE_DIR) && npm ci --no-audit --no-fund
	mkdir -p $(dir $@)
	cd $(VSCODE_DIR) && $(VSCE) package --out $(abspath $@)
