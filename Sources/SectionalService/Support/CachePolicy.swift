import HTTPServer

/// How every answer may be cached (`Cache-Control`), so a proxy or CDN in front of Sectional
/// never picks its own freshness lifetime:
///
/// - reads (`GET`, `HEAD`) that succeed: `no-cache` — a cache may store them but must
///   revalidate with the entity tag every time (list answers change with every write);
/// - reads of lists that need a token: `private, no-cache` and `Vary: Authorization`
///   (set by the list routes, see ``ListState/restrict(_:)``);
/// - problem answers and the answers of writes: `no-store`.
///
/// A handler that sets `Cache-Control` itself keeps it (event streams).
enum CachePolicy {
    static func apply(to response: inout Response, for request: Request) {
        guard response.headers["Cache-Control"] == nil else { return }
        let read = request.method.isRead
        response.headers.add("Cache-Control", read && !response.status.isError ? "no-cache" : "no-store")
    }

    /// Marks a read that needed a token as one only the client's own cache may keep, which
    /// differs by `Authorization`; a problem keeps `no-store` (set by ``apply(to:for:)``).
    static func markPrivate(_ response: inout Response) {
        if !response.status.isError { response.headers.set("Cache-Control", "private, no-cache") }
        response.headers.add("Vary", "Authorization")
    }
}

extension ListState {
    /// Marks a list's answer with its language (`Content-Language`; `Vary: Accept-Language` for
    /// a list in several languages) and, for a list that needs a token, as one only the client's
    /// own cache may keep, which differs by `Authorization`.
    /// In place: a copy of the answer would copy its header fields on the first one added.
    func restrict(_ response: inout Response) {
        markLanguage(&response)
        guard definition.access == .users else { return }
        CachePolicy.markPrivate(&response)
    }

    /// Marks an answer holding the list's texts with their language (`Content-Language`; `Vary:
    /// Accept-Language` for a list in several languages), as a write's answer needs too (its
    /// `Cache-Control` stays `no-store`).
    func markLanguage(_ response: inout Response) {
        // A list in several languages answers by `Accept-Language`.
        response.headers.add("Content-Language", definition.language)
        if definition.languages.count > 1 { response.headers.add("Vary", "Accept-Language") }
    }
}
