module catalogd-ts/hack/pause

go 1.26.0
