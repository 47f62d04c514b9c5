// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Sectional",
    // Linux only (Glibc, malloc_trim, tmpfs in the tests): no Apple platform is claimed.
    products: [
        .executable(name: "sectional", targets: ["sectional"]),
        .executable(name: "sectional-bench", targets: ["sectional-bench"]),
        // The pure view-model core, embeddable in an app: definitions, snapshots, paging,
        // batch updates, and typed rows and sections (`ListRow`, `ListSection`).
        .library(name: "ListModel", targets: ["ListModel"]),
        // The client library for apps: the list API, ListMirror, UIKit adapters (Foundation only).
        .library(name: "SectionalClient", targets: ["SectionalClient"]),
    ],
    targets: [
        // C libraries from the system, wrapped for Swift. Never public API.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),

        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),

        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),

        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // What Swift's Glibc module leaves out of glibc (nothing to link): malloc_trim after
        // large frees, and pinning a server thread to a CPU.
        .systemLibrary(name: "CGlibc"),
        // ThreadSanitizer's happens-before annotations (nothing to link; called only in `make tsan`).
        .systemLibrary(name: "CThreadSanitizer"),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // The project's one JSON writer (JSONWriter) and locale-free number text. Its own module
        // because both the HTTP server (problem answers) and the view-model core (rows, pages)
        // write JSON, and the server must not depend on the core. Pure, no dependencies.
        .target(name: "JSONOutput"),

        // `Locked`: `Synchronization.Mutex` made visible to ThreadSanitizer. Every lock in the project.
        .target(name: "Locking", dependencies: ["CThreadSanitizer"]),

        // A small, general HTTP server over libmicrohttpd. Knows nothing of lists.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib", "CGlibc", "JSONOutput", "Locking"]),

        // The pure view-model core: no I/O, no clocks, no globals. Re-exports JSONOutput.
        .target(name: "ListModel", dependencies: ["JSONOutput", "Locking"], linkerSettings: [.linkedLibrary("m")]),

        // Persistence of records, views and the change sequence: SQLite (default), PostgreSQL or memory.
        .target(name: "ListStore", dependencies: ["CSQLite", "CPostgres", "ListModel", "Locking"]),

        // User tokens: JWT verification (HS256, RS256, ES256 over libcrypto). No I/O, no clocks.
        .target(name: "Identity", dependencies: ["COpenSSL"]),

        // The application: lists, views, records over HTTP; config, logs, lifecycle.
        .target(
            name: "SectionalService",
            dependencies: ["HTTPServer", "ListModel", "ListStore", "Identity", "CGlibc", "Locking"],
            resources: [.embedInCode("Resources/openapi.json"), .embedInCode("Resources/index.html"),
                        // A link to clients/js/sectional.mjs, the JavaScript client, served at /sectional.mjs.
                        .embedInCode("Resources/sectional.mjs")]
                // Resources/sectional links to clients/js/sectional, the modules sectional.mjs imports,
                // each served at /sectional/<name>.mjs (DocumentRoutes.clientModules).
                + ["abortable", "client", "collection", "empty-changes", "errors", "list", "mirror", "snapshot-applier",
                   "types"].map { Resource.embedInCode("Resources/sectional/\($0).mjs") }
        ),

        // The client library for apps: Foundation only (FoundationNetworking on Linux), async/await.
        .target(name: "SectionalClient"),

        // Release builds allocate with jemalloc (Debian's libjemalloc): a 1,000,000-record cold
        // start, parsing every record and dropping it page by page on two threads, took 15-20%
        // less time than with glibc's malloc, whose consolidation of freed chunks was 8% of it
        // (`perf`); page reads and imports did not move. Debug builds, and the sanitizers' (which
        // bring their own allocator), keep glibc's. See `FreedMemory`.
        .executableTarget(name: "sectional", dependencies: ["SectionalService", "HTTPServer", "ListModel", "ListStore", "Identity"],
                          linkerSettings: [.linkedLibrary("jemalloc", .when(configuration: .release))]),
        .executableTarget(name: "sectional-bench", dependencies: ["ListModel", "SectionalService"]),

        // Helpers shared by the test targets: a raw HTTP client, polling with a deadline, PostgreSQL databases.
        .target(name: "TestSupport", dependencies: ["CZlib", "CPostgres", "Locking"], path: "Tests/TestSupport"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "JSONOutput", "Locking", "TestSupport"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        // Keys libcrypto generates for a test run, and tokens signed with them (any header, any claims).
        .target(name: "TestKeys", dependencies: ["Identity", "COpenSSL"], path: "Tests/TestKeys"),
        .testTarget(name: "IdentityTests", dependencies: ["Identity", "COpenSSL", "TestKeys"]),
        .testTarget(name: "ListModelTests", dependencies: ["ListModel", "JSONOutput", "SectionalService", "TestSupport"]),
        .testTarget(name: "ListStoreTests", dependencies: ["ListStore", "ListModel", "Locking", "TestSupport"]),
        .testTarget(name: "SectionalClientTests", dependencies: ["SectionalClient", "SectionalService", "ListModel", "Locking", "TestSupport"]),
        .testTarget(name: "SectionalServiceTests", dependencies: ["SectionalService", "HTTPServer", "ListModel", "ListStore", "Identity",
                                                             "Locking", "TestSupport", "TestKeys", "COpenSSL"]),
    ]
)
