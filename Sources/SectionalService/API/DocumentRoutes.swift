import HTTPServer
import ListModel

/// Documents served as they are kept in the source tree, embedded in the binary at build time.
/// Each has an entity tag from its bytes, so a cache revalidates it with a `304`.
struct DocumentRoutes {
    func register(on router: inout Router) {
        serve(PackageResources.openapi_json, at: "/openapi.json", type: "application/json; charset=utf-8", on: &router)
        // The preview runs only its own scripts and calls only this server; it draws rows' images
        // from wherever their `image` URLs point (a CDN's avatars), as an app would.
        serve(PackageResources.index_html, at: "/", type: "text/html; charset=utf-8", on: &router, extra: [
            ("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src http: https: data:"),
        ])
        serve(PackageResources.sectional_mjs, at: "/sectional.mjs", type: "text/javascript; charset=utf-8", on: &router)
        for module in Self.clientModules {
            serve(module.bytes, at: "/sectional/\(module.name)", type: "text/javascript; charset=utf-8", on: &router)
        }
    }

    /// The JavaScript client's modules (clients/js/sectional/), which /sectional.mjs imports, each
    /// served at `/sectional/<name>` as the browser resolves `./sectional/<name>` from /sectional.mjs.
    /// A name the table lacks is the router's `404 not-found`. A module added to the client needs its
    /// line here and in Package.swift (the resources), and in the OpenAPI document's `module` enum:
    /// JavaScriptClientModuleTests follows the imports from /sectional.mjs and fails until it has them.
    static let clientModules: [(name: String, bytes: [UInt8])] = [
        ("abortable.mjs", PackageResources.abortable_mjs),
        ("client.mjs", PackageResources.client_mjs),
        ("collection.mjs", PackageResources.collection_mjs),
        ("empty-changes.mjs", PackageResources.empty_changes_mjs),
        ("errors.mjs", PackageResources.errors_mjs),
        ("list.mjs", PackageResources.list_mjs),
        ("mirror.mjs", PackageResources.mirror_mjs),
        ("snapshot-applier.mjs", PackageResources.snapshot_applier_mjs),
        ("types.mjs", PackageResources.types_mjs),
    ]

    /// `GET path` answers `document` (tagged, `304` to a matching `If-None-Match`), with a memo
    /// that keeps its gzip form: the 231 KB OpenAPI document took milliseconds of CPU to compress
    /// on every request that accepts gzip.
    private func serve(_ document: [UInt8], at path: String, type: String, on router: inout Router, extra: [(String, String)] = []) {
        let tag = Self.tag(document)
        let memo = ResponseMemo(document)
        var headers = HTTPHeaders()
        headers.add("Content-Type", type)
        for (name, value) in extra { headers.add(name, value) }
        router.get(path) { [headers] request in
            EntityTag.answer(request, tag: tag) {
                var response = Response(status: .ok, headers: headers, body: document)
                response.memo = memo
                return response
            }
        }
    }

    /// A strong entity tag from a document's bytes.
    static func tag(_ bytes: [UInt8]) -> String {
        var hash = FNV1a()
        hash.combine(bytes)
        return "\"doc-\(String(hash.value, radix: 16))\""
    }
}
