import HTTPServer
import ListModel

/// Documents served as they are kept in the source tree, embedded in the binary at build time.
/// Each has an entity tag from its bytes, so a cache revalidates it with a `304`.
struct DocumentRoutes {
    func register(on router: inout Router) {
        serve(PackageResources.openapi_json, at: "/openapi.json", type: "application/json; charset=utf-8", on: &router)
        serve(PackageResources.index_html, at: "/", type: "text/html; charset=utf-8", on: &router, extra: [
            ("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:"),
        ])
        serve(PackageResources.sectional_mjs, at: "/sectional.mjs", type: "text/javascript; charset=utf-8", on: &router)
    }

    /// `GET path` answers `document` (tagged, `304` to a matching `If-None-Match`).
    private func serve(_ document: [UInt8], at path: String, type: String, on router: inout Router, extra: [(String, String)] = []) {
        let tag = Self.tag(document)
        var headers = HTTPHeaders()
        headers.add("Content-Type", type)
        for (name, value) in extra { headers.add(name, value) }
        router.get(path) { [headers] request in
            EntityTag.answer(request, tag: tag) { Response(status: .ok, headers: headers, body: document) }
        }
    }

    /// A strong entity tag from a document's bytes.
    static func tag(_ bytes: [UInt8]) -> String {
        var hash = FNV1a()
        hash.combine(bytes)
        return "\"doc-\(String(hash.value, radix: 16))\""
    }
}
