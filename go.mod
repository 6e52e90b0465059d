module github.com/phoenix-desktop/phoenix

go 1.26.0

require (
	fyne.io/fyne/v2 v2.7.1
	github.com/BurntSushi/toml v1.5.0
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2
	github.com/alecthomas/chroma/v2 v2.27.0
	github.com/asynkron/protoactor-go v0.0.0-20240822202345-3c0e61ca19c9
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/dgraph-io/badger/v4 v4.9.6
	github.com/dgraph-io/ristretto/v2 v2.2.0
	github.com/elastic/go-seccomp-bpf v1.5.0
	github.com/fsnotify/fsnotify v1.9.0
	github.com/go-git/go-git/v5 v5.19.3
	github.com/goccy/go-json v0.12.0
	github.com/godbus/dbus/v5 v5.2.2
	github.com/google/jsonschema-go v0.4.3
	github.com/landlock-lsm/go-landlock v0.11.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/orcaman/concurrent-map v1.0.0
	github.com/sashabaranov/go-openai v1.43.0
	github.com/sourcegraph/jsonrpc2 v0.2.3
	github.com/yuin/goldmark v1.8.2
	github.com/zalando/go-keyring v0.2.8
	go.uber.org/goleak v1.3.0
	golang.org/x/image v0.24.0
	golang.org/x/net v0.57.0
	golang.org/x/oauth2 v0.35.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
	gopkg.in/yaml.v3 v3.0.1
	pgregory.net/rapid v1.3.0
)

require (
	fyne.io/systray v1.11.1-0.20250603113521-ca66a66d8b58 // indirect
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/Workiva/go-datastructures v1.1.3 // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/danieljoos/wincred v1.2.3 // indirect
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/dlclark/regexp2/v2 v2.2.1 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/emirpasic/gods v1.18.1 // indirect
	github.com/fredbi/uri v1.1.1 // indirect
	github.com/fyne-io/gl-js v0.2.0 // indirect
	github.com/fyne-io/glfw-js v0.3.0 // indirect
	github.com/fyne-io/image v0.1.1 // indirect
	github.com/fyne-io/oksvg v0.2.0 // indirect
	github.com/go-git/gcfg v1.5.1-0.20230307220236-3a3c6141e376 // indirect
	github.com/go-git/go-billy/v5 v5.9.2 // indirect
	github.com/go-gl/gl v0.0.0-20231021071112-07e5d0ea2e71 // indirect
	github.com/go-gl/glfw/v3.3/glfw v0.0.0-20240506104042-037f3cc74f2a // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/go-text/render v0.2.0 // indirect
	github.com/go-text/typesetting v0.2.1 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	github.com/google/flatbuffers v25.2.10+incompatible // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/hack-pad/go-indexeddb v0.3.2 // indirect
	github.com/hack-pad/safejs v0.1.0 // indirect
	github.com/jbenet/go-context v0.0.0-20150711004518-d14ea06fba99 // indirect
	github.com/jeandeaual/go-locale v0.0.0-20250612000132-0ef82f21eade // indirect
	github.com/jsummers/gobmp v0.0.0-20230614200233-a9de23ed2e25 // indirect
	github.com/klauspost/compress v1.18.0 // indirect
	github.com/lithammer/shortuuid/v4 v4.0.0 // indirect
	github.com/lmittmann/tint v1.0.3 // indirect
	github.com/matttproud/golang_protobuf_extensions v1.0.4 // indirect
	github.com/nfnt/resize v0.0.0-20180221191011-83c6a9932646 // indirect
	github.com/nicksnyder/go-i18n/v2 v2.5.1 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/prometheus/client_golang v1.17.0 // indirect
	github.com/prometheus/client_model v0.5.0 // indirect
	github.com/prometheus/common v0.44.0 // indirect
	github.com/prometheus/procfs v0.11.1 // indirect
	github.com/rymdport/portal v0.4.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/sourcegraph/go-diff v0.7.0
	github.com/srwiley/oksvg v0.0.0-20221011165216-be6e8873101c // indirect
	github.com/srwiley/rasterx v0.0.0-20220730225603-2ab79fcdd4ef // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	github.com/twmb/murmur3 v1.1.8 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel v1.41.0 // indirect
	go.opentelemetry.io/otel/exporters/prometheus v0.44.0 // indirect
	go.opentelemetry.io/otel/metric v1.41.0 // indirect
	go.opentelemetry.io/otel/sdk v1.41.0 // indirect
	go.opentelemetry.io/otel/sdk/metric v1.41.0 // indirect
	go.opentelemetry.io/otel/trace v1.41.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	google.golang.org/protobuf v1.36.7 // indirect
	gopkg.in/warnings.v0 v0.1.2 // indirect
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.77 // indirect
)

// Fyne reads the locale through go-locale, whose newest version turns LANG=C.UTF-8 into the
// language "C" and makes Fyne log an error at every start: third_party/go-locale/README.md.
replace github.com/jeandeaual/go-locale => ./third_party/go-locale

// A copy of ristretto v2.2.0 whose z.OpenMmapFileUsing advises MADV_RANDOM on files it has just
// created, so that a new store's first write does not make the kernel zero-fill megabytes of
// read-ahead, and whose mapped files leave the app's resident memory once written back or at
// rest: third_party/ristretto/README.md.
replace github.com/dgraph-io/ristretto/v2 => ./third_party/ristretto

// Fyne's lang package parses its 40-odd translation files into go-i18n's bundle during
// package initialisation, in every start of the app, headless or not: a copy of go-i18n that
// parses them on first use: third_party/go-i18n/README.md.
replace github.com/nicksnyder/go-i18n/v2 => ./third_party/go-i18n

// goldmark compiles its package-level regular expressions (linkify's URL patterns nest 256
// levels deep) and builds its case-folding map during package initialisation, in every start
// of the app: a copy that does both on first use: third_party/goldmark/README.md.
replace github.com/yuin/goldmark => ./third_party/goldmark
