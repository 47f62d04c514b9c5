/// A validated list definition.
public struct ListDefinition: Sendable {
    /// The list name (`lists.<name>`).
    public let name: String
    /// `title`, if given.
    public let title: String?
    /// The section specs in order.
    public let sections: [SectionSpec]
    /// The collections this list reads, sorted and distinct. A write to any other collection
    /// cannot change the list.
    public let sources: [String]
    /// A deterministic 64-bit fingerprint (FNV-1a over a canonical encoding of the name and
    /// the definition JSON): equal definitions give equal fingerprints in every process, and
    /// an edited definition a different one — suitable for ETags.
    public let fingerprint: UInt64
    /// Who may read the list (`users` whenever it has a ``scope``).
    public let access: ListAccess
    /// How records split into per-user partitions; nil for a list that is the same for everyone.
    public let scope: ListScope?
    /// Section keys hidden in the default view: literal/keyed specs with `hidden: true` and
    /// every `hiddenByDefault` key.
    public let defaultHidden: Set<CodePointKey>

    /// The definition as written (the JSON it was decoded from).
    public let source: JSONValue
    /// The languages it is served in (`languages`; `["en"]` by default); the first is the fallback.
    public let languages: [String]
    /// The language this definition's strings and formatters are in.
    public let language: String
    /// The fields `?q=` searches (`search.fields`); nil when the list has no search.
    public let search: [FieldPath]?
    /// The fields `?filter.FIELD=VALUE` may compare (`filters`).
    public let filters: [FieldPath]
    /// `timeZone`: the zone the `date` formatter writes local time in (UTC when not given).
    public let timeZone: TimeZoneOffsets

    /// The view a read without `?view=` sees.
    public var defaultView: ViewState { ViewState(hiddenKeys: defaultHidden) }
    /// ``defaultView``'s fingerprint, computed once (it sorts the hidden keys; every state a
    /// write publishes, one per resident search too, tags itself with it).
    public let defaultViewFingerprint: UInt64

    /// `true` when the list reads `collection`.
    public func reads(collection: String) -> Bool { sources.contains(collection) }

    /// Spec indexes per source collection.
    let specsBySource: [String: [Int]]
    /// Per spec: the row ordering rule.
    let orders: [RowOrder]
    /// Per spec: its data binding (`nil` for literal specs).
    let bindings: [DataBinding?]

    init(name: String, title: String?, sections: [SectionSpec], fingerprint: UInt64,
         access: ListAccess = .public, scope: ListScope? = nil, source: JSONValue = .null, languages: [String] = ["en"],
         language: String = "en", timeZone: TimeZoneOffsets = .utc, search: [FieldPath]? = nil, filters: [FieldPath] = []) {
        self.name = name
        self.timeZone = timeZone
        self.search = search
        self.filters = filters
        self.source = source
        self.languages = languages
        self.language = language
        self.access = access
        self.scope = scope
        self.title = title
        self.sections = sections
        self.fingerprint = fingerprint
        var bySource: [String: [Int]] = [:]
        var hidden: Set<CodePointKey> = []
        var orders: [RowOrder] = []
        for s in sections {
            switch s.content {
            case .literal:
                orders.append(RowOrder(descending: [false]))
                if s.hidden, let k = s.key { hidden.insert(CodePointKey(k)) }
            case .data(let b):
                bySource[b.source, default: []].append(s.index)
                orders.append(RowOrder(descending: b.sortBy.map(\.descending)))
                if s.hidden, let k = s.key { hidden.insert(CodePointKey(k)) }
                hidden.formUnion(b.hiddenByDefault.lazy.map(CodePointKey.init))
            }
        }
        self.specsBySource = bySource
        self.sources = bySource.keys.sorted(by: codePointLess)
        self.defaultHidden = hidden
        self.defaultViewFingerprint = ViewState(hiddenKeys: hidden).fingerprint
        self.orders = orders
        self.bindings = sections.map(\.binding)
    }
}

extension ListDefinition {
    /// This list as served in `language` (one of ``languages``): every language map's text in
    /// it (per string, else the first language's), formatters writing with `formats`. Its
    /// fingerprint differs per language.
    public func localized(_ language: String, formats: LocaleFormats) -> ListDefinition {
        ListDefinitions.decode(name: name, source, language: language, formats: formats, timeZone: timeZone) ?? self
    }
}

/// Decoding of the configuration's `lists` object.
public enum ListDefinitions {
    /// Decodes and validates every list of a `lists` object, in the object's member order.
    ///
    /// - Parameters:
    ///   - path: the JSON path of `lists` used in error paths (default `lists`).
    ///   - zones: what a list's `timeZone` name means (nil: unknown, an error); by default only
    ///     `UTC` is known, the service passes the platform's time zone data.
    /// - Throws: ``DefinitionErrors`` with every problem found, each with its JSON path.
    public static func decode(_ lists: JSONValue, path: String = "lists",
                              zones: @escaping (String) -> TimeZoneOffsets? = TimeZoneOffsets.builtIn) throws(DefinitionErrors) -> [ListDefinition] {
        var d = DefinitionDecoder()
        d.zones = zones
        guard case .object(let obj) = lists else {
            throw DefinitionErrors([DefinitionError(path: path, message: "expected an object of list definitions, got \(lists.typeName)")])
        }
        var result: [ListDefinition] = []
        for m in obj.members {
            let def = d.list(name: m.key, m.value, path: "\(path).\(m.key)")
            d.checkTranslations(name: m.key, m.value, path: "\(path).\(m.key)")
            if let def { result.append(def) }
        }
        if !d.errors.isEmpty { throw DefinitionErrors(d.errors) }
        return result
    }

    /// Decodes one list definition named `name`; `zones` resolves its `timeZone` (as above).
    public static func decode(name: String, _ json: JSONValue, path: String? = nil,
                              zones: @escaping (String) -> TimeZoneOffsets? = TimeZoneOffsets.builtIn) throws(DefinitionErrors) -> ListDefinition {
        var d = DefinitionDecoder()
        d.zones = zones
        let def = d.list(name: name, json, path: path ?? "lists.\(name)")
        d.checkTranslations(name: name, json, path: path ?? "lists.\(name)")
        if let def, d.errors.isEmpty { return def }
        throw DefinitionErrors(d.errors)
    }

    /// Decodes `json` (a definition that decoded) as list `name` in `language`, its formatters
    /// writing with `formats` in `timeZone` (the zone it named); nil when it does not decode.
    static func decode(name: String, _ json: JSONValue, language: String, formats: LocaleFormats,
                       timeZone: TimeZoneOffsets) -> ListDefinition? {
        var d = DefinitionDecoder()
        d.formats = formats
        d.zones = { $0 == timeZone.identifier ? timeZone : nil }
        let def = d.list(name: name, json, path: "$", language: language)
        return d.errors.isEmpty ? def : nil
    }
}
