import ListModel
import ListStore

/// Where a list's definition came into force, as the store remembers it across restarts, and
/// the fingerprint it replaced when that happened at this start.
struct ServedChange: Sendable {
    /// The change number the served definition came into force at: the list's lowest version.
    let sequence: Int64
    /// The fingerprint of the definition served before, when it differed at this start.
    let changedFrom: UInt64?
}

extension ViewModelStore {
    /// Compares each list's definition in force with the one the store says it was last served
    /// with, before the lists are built. A list whose definition changed while no server ran
    /// (the config file edited, the server upgraded) moves to a new change number, as a config
    /// reload would move it: its version grows and `changes` from before it answers reload. One
    /// whose definition is unchanged keeps the number it came into force at as its lowest
    /// version, so a list moved by a reload never shows a lower version after a restart. A list
    /// served for the first time is recorded as it is.
    ///
    /// Costs one read of the served table and of the run-time definitions, and one change number
    /// and one write when something changed. On several instances, each one starting with an
    /// edited config moves the lists once: the second finds the new fingerprint recorded — also
    /// when they start at once (the store checks again as it takes the number:
    /// ``RecordStore/recordServedChange(_:deliveries:)``), recording the deliveries of `webhooks`
    /// that follow the lists it moves.
    static func noteServedDefinitions(_ definitions: [ListDefinition], in store: RecordStore, webhooks: [WebhookSettings],
                                      log: Log) throws(StoreError) -> [String: ServedChange] {
        var catalog = ListCatalog(config: definitions)
        _ = catalog.load(try store.allDefinitions())
        let served = try store.servedDefinitions()
        var changed: [ListDefinition] = []
        var record: [String: ServedDefinition] = [:]
        var result: [String: ServedChange] = [:]
        for definition in catalog.definitions {
            guard let was = served[definition.name] else {
                record[definition.name] = ServedDefinition(fingerprint: definition.fingerprint, sequence: 0)
                continue
            }
            if was.fingerprint == definition.fingerprint {
                result[definition.name] = ServedChange(sequence: was.sequence, changedFrom: nil)
            } else {
                changed.append(definition)
            }
        }
        // Writes: a store that refuses them (a full disk) still serves, the lists at the versions
        // they had; the next start that can write moves them.
        do throws(StoreError) {
            if !changed.isEmpty {
                // One number for them all; none for a list another instance starting with the
                // same definition recorded since the read above: its number is taken.
                let recorded = try store.recordServedChange(Dictionary(changed.map { ($0.name, $0.fingerprint) }, uniquingKeysWith: { $1 }),
                                                            deliveries: changed.compactMap { definitionDeliveries($0, webhooks: webhooks) })
                var sequence: Int64 = 0
                for definition in changed {
                    let now = recorded[definition.name]?.sequence ?? 0
                    sequence = max(sequence, now)
                    result[definition.name] = ServedChange(sequence: now, changedFrom: served[definition.name]?.fingerprint)
                }
                // Recorded as not served: removed since, or every list of a restored backup copy.
                let resumed = changed.filter { served[$0.name]?.fingerprint == ServedDefinition.removedFingerprint }.map(\.name)
                let edited = changed.map(\.name).filter { !resumed.contains($0) }
                if !edited.isEmpty {
                    log.info("lists whose definition changed since they were last served move to a new version",
                             ["lists": .text(edited.joined(separator: ",")), "version": .number(Double(sequence))])
                }
                if !resumed.isEmpty {
                    log.info("lists not served since their last version here (removed, or the store is a restored copy) move to a new version",
                             ["lists": .text(resumed.joined(separator: ",")), "version": .number(Double(sequence))])
                }
            }
            if !record.isEmpty { try store.recordServed(record) }
        } catch where error.fault != nil {
            log.warn("cannot record the lists' definitions now; they keep their versions until a start that can",
                     ["error": .text("\(error)")])
            return result.filter { $0.value.changedFrom == nil }
        }
        return result
    }

    /// Records that `definitions` are served from change `sequence` on (see
    /// ``noteServedDefinitions(_:in:webhooks:log:)``), and that the lists `removed` stopped being served
    /// there, after the change is committed and served. A removed list is recorded with
    /// ``ServedDefinition/removedFingerprint``, which no definition has: when a later start
    /// serves it again, even with the definition it had, it moves to a new version, above the
    /// one its removal announced. A record that cannot be written is logged, not thrown: the
    /// change stands, and the next start finds the definition differs from the one recorded and
    /// moves the list once more, which is safe.
    func recordServed(_ definitions: [ListDefinition], removed: [String] = [], at sequence: Int64) {
        guard !definitions.isEmpty || !removed.isEmpty else { return }
        var record = Dictionary(definitions.map { ($0.name, ServedDefinition(fingerprint: $0.fingerprint, sequence: sequence)) },
                                uniquingKeysWith: { $1 })
        for name in removed { record[name] = ServedDefinition(fingerprint: ServedDefinition.removedFingerprint, sequence: sequence) }
        do throws(StoreError) {
            try store.recordServed(record)
        } catch {
            log.warn("cannot record the lists' definitions now; the next start moves them again",
                     ["lists": .text(record.keys.sorted().joined(separator: ",")), "error": .text("\(error)")])
        }
    }
}
