module catalogd-ts/hack/upgrades-check

go 1.24.4

require github.com/blang/semver/v4 v4.0.0
