import HTTPServer

/// Documents served as they are kept in the source tree, embedded in the binary at build time.
struct DocumentRoutes {
    func register(on router: inout Router) {
        let openAPI = PackageResources.openapi_json
        router.get("/openapi.json") { _ in .json(openAPI) }
        let page = PackageResources.index_html
        router.get("/") { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/html; charset=utf-8")
            headers.add("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; img-src 'self' data:")
            return Response(status: 200, headers: headers, body: page)
        }
        let client = PackageResources.sectional_mjs
        router.get("/sectional.mjs") { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/javascript; charset=utf-8")
            return Response(status: 200, headers: headers, body: client)
        }
    }
}
