import HTTPServer

/// Documents served as they are kept in the source tree, embedded in the binary at build time.
struct DocumentRoutes {
    func register(on router: inout Router) {
        let openAPI = PackageResources.openapi_json
        router.get("/openapi.json") { _ in .json(openAPI) }
    }
}
