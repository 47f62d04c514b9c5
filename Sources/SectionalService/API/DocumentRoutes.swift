import HTTPServer
import ListModel

/// Documents served as they are kept in the source tree, embedded in the binary at build time.
/// Each has an entity tag from its bytes, so a cache revalidates it with a `304`.
struct DocumentRoutes {
    func register(on router: inout Router) {
        let openAPI = PackageResources.openapi_json
        let openAPITag = Self.tag(openAPI)
        router.get("/openapi.json") { request in EntityTag.answer(request, tag: openAPITag) { .json(openAPI) } }
        let page = PackageResources.index_html
        let pageTag = Self.tag(page)
        router.get("/") { request in
            EntityTag.answer(request, tag: pageTag) {
                var headers = HTTPHeaders()
                headers.add("Content-Type", "text/html; charset=utf-8")
                headers.add("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:")
                return Response(status: 200, headers: headers, body: page)
            }
        }
        let client = PackageResources.sectional_mjs
        let clientTag = Self.tag(client)
        router.get("/sectional.mjs") { request in
            EntityTag.answer(request, tag: clientTag) {
                var headers = HTTPHeaders()
                headers.add("Content-Type", "text/javascript; charset=utf-8")
                return Response(status: 200, headers: headers, body: client)
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
