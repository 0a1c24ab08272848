module catalogd-ts/hack/serve-baseline

go 1.24

require github.com/klauspost/compress v1.18.0
