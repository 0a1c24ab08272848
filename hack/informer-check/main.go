// Command informer-check runs a client-go shared informer on one resource and prints what it does,
// one JSON line per thing, so that a test can check what a real Kubernetes client sees of the
// served view (issue 55, docs/served.md) across a leader failover and a rolling update:
//
//	{"event":"LIST","resourceVersion":"<asked>","listResourceVersion":"<answered>","items":N,"lists":N}
//	{"event":"WATCH","resourceVersion":"<from>","watches":N}      a watch (re)started from a resourceVersion
//	{"event":"WATCH_END","resourceVersion":"<from>","events":N}  that watch's result channel closed
//	{"event":"WATCH_ERROR","error":"..."}                        the reflector's watch error handler
//	{"event":"WATCH_EVENT_ERROR","status":{...}}                 an ERROR event in a watch (the reflector relists after it)
//	{"event":"ADD"|"UPDATE"|"DELETE","name":"...","resourceVersion":"...","contentHash":"...","initial":bool}
//	{"event":"SYNCED"}                                           the informer's cache synced once
//	{"event":"STORE","objects":{"<name>":"<content-hash annotation>"}}   on SIGTERM, then exit 0
//
// LIST and WATCH come from wrapping the ListWatch the reflector calls, so they count every list it
// makes (a relist after an error or a 410 Gone included), not only the first.
//
// It is built inside operator-controller's module by hack/olmv1/build.sh (beside olmv1-check), in
// the same `go build` invocation, so it is the client-go version operator-controller uses. It
// reads KUBECONFIG.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

const contentHashAnnotation = "olm.operatorframework.io/content-hash"

var out = struct {
	sync.Mutex
	enc *json.Encoder
}{enc: json.NewEncoder(os.Stdout)}

// emit prints one line; lines of concurrent goroutines never interleave.
func emit(v map[string]any) {
	out.Lock()
	defer out.Unlock()
	_ = out.enc.Encode(v)
}

func main() {
	group := flag.String("group", "content.olm.operatorframework.io", "API group")
	version := flag.String("version", "v1", "API version")
	resource := flag.String("resource", "catalogmetadata", "resource (plural)")
	selector := flag.String("selector", "", "label selector of the list and watch")
	flag.Parse()

	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		fmt.Fprintf(os.Stderr, "informer-check: kubeconfig: %v\n", err)
		os.Exit(2)
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		fmt.Fprintf(os.Stderr, "informer-check: client: %v\n", err)
		os.Exit(2)
	}
	gvr := schema.GroupVersionResource{Group: *group, Version: *version, Resource: *resource}
	resources := client.Resource(gvr)

	var lists, watches atomic.Int64
	lw := &cache.ListWatch{
		ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
			opts.LabelSelector = *selector
			list, err := resources.List(context.Background(), opts)
			n := lists.Add(1)
			line := map[string]any{"event": "LIST", "resourceVersion": opts.ResourceVersion, "lists": n}
			if err != nil {
				line["error"] = err.Error()
			} else {
				line["listResourceVersion"] = list.GetResourceVersion()
				line["items"] = len(list.Items)
			}
			emit(line)
			return list, err
		},
		WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
			opts.LabelSelector = *selector
			w, err := resources.Watch(context.Background(), opts)
			n := watches.Add(1)
			line := map[string]any{"event": "WATCH", "resourceVersion": opts.ResourceVersion, "watches": n}
			if err != nil {
				line["error"] = err.Error()
				emit(line)
				return nil, err
			}
			emit(line)
			return newCountingWatch(w, opts.ResourceVersion), nil
		},
	}
	informer := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	_ = informer.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
		emit(map[string]any{"event": "WATCH_ERROR", "error": err.Error()})
	})
	objectLine := func(event string, obj any, initial bool) {
		if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			emit(map[string]any{"event": event, "error": fmt.Sprintf("unexpected %T", obj)})
			return
		}
		emit(map[string]any{
			"event":           event,
			"name":            u.GetName(),
			"resourceVersion": u.GetResourceVersion(),
			"contentHash":     u.GetAnnotations()[contentHashAnnotation],
			"initial":         initial,
		})
	}
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { objectLine("ADD", obj, initial) },
		UpdateFunc: func(_, obj any) { objectLine("UPDATE", obj, false) },
		DeleteFunc: func(obj any) { objectLine("DELETE", obj, false) },
	})

	stop := make(chan struct{})
	go informer.Run(stop)
	go func() {
		if cache.WaitForCacheSync(stop, informer.HasSynced) {
			emit(map[string]any{"event": "SYNCED"})
		}
	}()

	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	<-signals
	close(stop)
	objects := map[string]string{}
	for _, obj := range informer.GetStore().List() {
		u := obj.(*unstructured.Unstructured)
		objects[u.GetName()] = u.GetAnnotations()[contentHashAnnotation]
	}
	emit(map[string]any{"event": "STORE", "objects": objects})
}

// countingWatch forwards a watch's events and reports, when its server side ends, how many it
// carried: a watch that ends early (a replica going away) shows as WATCH_END and the next WATCH.
type countingWatch struct {
	inner  watch.Interface
	result chan watch.Event
	done   chan struct{}
	once   sync.Once
}

func newCountingWatch(inner watch.Interface, from string) *countingWatch {
	w := &countingWatch{inner: inner, result: make(chan watch.Event), done: make(chan struct{})}
	go func() {
		defer close(w.result)
		n := 0
		defer func() {
			emit(map[string]any{"event": "WATCH_END", "resourceVersion": from, "events": n})
		}()
		for e := range inner.ResultChan() {
			if e.Type != watch.Bookmark {
				n++
			}
			if e.Type == watch.Error {
				// The reflector ends the watch on it and lists again: say what it was.
				emit(map[string]any{"event": "WATCH_EVENT_ERROR", "resourceVersion": from, "status": e.Object})
			}
			select {
			case w.result <- e:
			case <-w.done:
				return
			}
		}
	}()
	return w
}

func (w *countingWatch) Stop() {
	w.once.Do(func() { close(w.done) })
	w.inner.Stop()
}

func (w *countingWatch) ResultChan() <-chan watch.Event { return w.result }
