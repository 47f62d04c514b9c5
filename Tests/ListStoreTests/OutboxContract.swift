import ListModel
import ListStore
import XCTest

/// The webhook outbox part of the store contract: rows written by commits, coalesced per
/// webhook, list and partition; claimed by one worker at a time; removed, released or kept
/// for a later version.
extension RecordStoreContract {
    private func write(_ store: RecordStore, _ ids: [String], deliveries: @escaping DeliveryPlanner) throws -> [CommitResult] {
        try store.commit(groups: ids.map { [.upsert(collection: "people", id: $0, json: Array(#"{"id":"x"}"#.utf8))] },
                         previousIn: [], deliveries: deliveries)
    }

    /// A planner that asks for list `l` of webhook `h` at every changed group's version (and of
    /// user "ann" in list `inbox`).
    private var everyGroup: DeliveryPlanner {
        { groups, results in
            XCTAssertEqual(groups.count, results.count, "the planner sees each group with its result")
            return results.filter(\.changedAnything).flatMap { result in
                [DeliveryRequest(webhook: "h", list: "l", version: result.sequence),
                 DeliveryRequest(webhook: "h", list: "inbox", partition: "s:ann", user: #""ann""#, version: result.sequence)]
            }
        }
    }

    func checkCommitsRecordDeliveriesCoalescedPerListAndPartition() throws {
        let store = try makeStore()
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 0, nextDue: nil))
        _ = try write(store, ["a", "b", "c"], deliveries: everyGroup)
        _ = try write(store, ["d"], deliveries: everyGroup)
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 2, nextDue: 0), "four commits, one row per list and partition")
        let claimed = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10)
        XCTAssertEqual(Set(claimed.map(\.version)), [4], "each row holds the latest version")
        XCTAssertEqual(claimed.first { $0.list == "inbox" }?.user, #""ann""#)
        XCTAssertEqual(claimed.first { $0.list == "inbox" }?.partition, "s:ann")
        XCTAssertEqual(claimed.first { $0.list == "l" }?.partition, "")
        XCTAssertNil(claimed.first { $0.list == "l" }?.user)
        XCTAssertEqual(try store.claimDeliveries(webhooks: ["other"], now: 1_000, claimUntil: 9_000, owner: "b", limit: 10), [],
                       "another webhook's rows are not claimed")
        // Partitions are told apart by code points: "Karl" and "\u{212A}arl" (a Kelvin sign),
        // equal to Swift's String, are two users, two rows, even from one commit.
        _ = try write(store, ["e"]) { _, results in
            ["Karl", "\u{212A}arl"].map { DeliveryRequest(webhook: "k", list: "inbox", partition: "s:" + $0, user: #""\#($0)""#,
                                                        version: results[0].sequence) }
        }
        let users = try store.claimDeliveries(webhooks: ["k"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10)
        XCTAssertEqual(Set(users.map { CodePointKey($0.partition) }), [CodePointKey("s:Karl"), CodePointKey("s:\u{212A}arl")])
    }

    /// A user's value may hold U+0000 (JSON allows it; PostgreSQL text does not): its delivery is
    /// recorded, told apart from a user with U+FFFD there, claimed with the partition it was
    /// asked for, and accepted.
    func checkAPartitionWithANulIsRecordedAndClaimedAsAsked() throws {
        let store = try makeStore()
        let partitions = ["s:a\u{0}b", "s:a\u{FFFD}b", "\u{1}61", "a"]
        _ = try write(store, ["a"]) { _, results in
            partitions.map { DeliveryRequest(webhook: "h", list: "inbox", partition: $0, user: "\"u\"", version: results[0].sequence) }
        }
        let claimed = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10)
        XCTAssertEqual(Set(claimed.map { CodePointKey($0.partition) }), Set(partitions.map(CodePointKey.init)))
        for delivery in claimed { try store.deliveryAccepted(delivery, owner: "a") }
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 0, nextDue: nil), "each claimed row accepted")
    }

    func checkAClaimedDeliveryIsHeldUntilAcceptedFailedOrItsLeaseEnds() throws {
        let store = try makeStore()
        _ = try write(store, ["a"], deliveries: everyGroup)
        let first = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 5_000, owner: "a", limit: 1)
        XCTAssertEqual(first.count, 1, "the limit holds")
        let second = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 5_000, owner: "b", limit: 10)
        XCTAssertEqual(second.count, 1, "the other row only")
        XCTAssertNotEqual(first.first?.list, second.first?.list)
        XCTAssertEqual(try store.claimDeliveries(webhooks: ["h"], now: 4_999, claimUntil: 9_000, owner: "c", limit: 10), [],
                       "claimed rows are not taken again while their claims run")
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]).nextDue, 5_000)
        let expired = try store.claimDeliveries(webhooks: ["h"], now: 5_000, claimUntil: 9_000, owner: "c", limit: 10)
        XCTAssertEqual(expired.count, 2, "a claim that ran out (its worker died) is taken by another")
        try store.deliveryFailed(try XCTUnwrap(expired.first), owner: "a", retryAt: 6_000)
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]).nextDue, 9_000, "a failure reported by a worker that lost the claim changes nothing")
    }

    func checkAcceptedDeliveriesGoUnlessALaterVersionCame() throws {
        let store = try makeStore()
        _ = try write(store, ["a"], deliveries: everyGroup)
        let claimed = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10)
        XCTAssertEqual(claimed.count, 2)
        _ = try write(store, ["b"], deliveries: { _, results in
            [DeliveryRequest(webhook: "h", list: "l", version: results[0].sequence)]
        })
        for delivery in claimed { try store.deliveryAccepted(delivery, owner: "a") }
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 1, nextDue: 0),
                       "the version written while the first was on its way is due at once")
        let next = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "b", limit: 10)
        XCTAssertEqual(next.map(\.version), [2])
        XCTAssertEqual(next.map(\.list), ["l"])
        try store.deliveryAccepted(try XCTUnwrap(next.first), owner: "b")
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 0, nextDue: nil))
    }

    /// An acceptance that comes after the worker's claim ran out (its database was away for
    /// longer than the lease) while a later version waits: the row stays as the worker that took
    /// it meanwhile left it — its claim, or its retry time after a failure.
    func checkAnAcceptanceFromAWorkerThatLostTheClaimLeavesTheRowToItsHolder() throws {
        let store = try makeStore()
        let toL: DeliveryPlanner = { _, results in [DeliveryRequest(webhook: "h", list: "l", version: results[0].sequence)] }
        _ = try write(store, ["a"], deliveries: toL)
        let late = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 2_000, owner: "a", limit: 10).first)
        _ = try write(store, ["b"], deliveries: toL)
        let taken = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 2_000, claimUntil: 9_000, owner: "b", limit: 10).first)
        XCTAssertEqual(taken.version, 2)
        try store.deliveryAccepted(late, owner: "a")
        XCTAssertEqual(try store.claimDeliveries(webhooks: ["h"], now: 2_000, claimUntil: 9_000, owner: "c", limit: 10), [],
                       "b's claim still holds")
        try store.deliveryFailed(taken, owner: "b", retryAt: 5_000)
        try store.deliveryAccepted(late, owner: "a")
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 1, nextDue: 5_000), "b's retry time stands")
    }

    func checkFailedDeliveriesWaitForTheirRetryAndCountAttempts() throws {
        let store = try makeStore()
        _ = try write(store, ["a"], deliveries: { _, results in [DeliveryRequest(webhook: "h", list: "l", version: results[0].sequence)] })
        let claimed = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10).first)
        XCTAssertEqual(claimed.attempts, 0)
        try store.deliveryFailed(claimed, owner: "a", retryAt: 2_000)
        XCTAssertEqual(try store.claimDeliveries(webhooks: ["h"], now: 1_999, claimUntil: 9_000, owner: "a", limit: 10), [])
        _ = try write(store, ["b"], deliveries: { _, results in [DeliveryRequest(webhook: "h", list: "l", version: results[0].sequence)] })
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 1, nextDue: 2_000),
                       "a new version does not bring a failing receiver's retry forward")
        let again = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 2_000, claimUntil: 9_000, owner: "a", limit: 10).first)
        XCTAssertEqual(again.attempts, 1)
        XCTAssertEqual(again.version, 2)
    }

    /// Claims take the rows that have waited longest: partitions written again and again while
    /// their deliveries are on their way go behind the ones waiting since before (16 busy users
    /// cannot keep a 17th waiting for as long as they are written), a waiting row written again
    /// keeps its place, and a row due again after a failure goes before rows recorded after it.
    func checkClaimsTakeTheLongestWaitingRowsFirst() throws {
        let store = try makeStore()
        let users = (0..<24).map { "u" + String(100 + $0).dropFirst() }
        func planFor(_ names: some Sequence<String>) -> DeliveryPlanner {
            let names = Array(names)
            return { _, results in
                names.map { DeliveryRequest(webhook: "h", list: "inbox", partition: "s:" + $0, user: #""\#($0)""#, version: results[0].sequence) }
            }
        }
        _ = try write(store, ["a"], deliveries: planFor(users))
        let first = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 16)
        XCTAssertEqual(Set(first.map(\.partition)), Set(users.prefix(16).map { "s:" + $0 }))
        _ = try write(store, ["b"], deliveries: planFor(users.prefix(16)))
        for delivery in first { try store.deliveryAccepted(delivery, owner: "a") }
        _ = try write(store, ["c"], deliveries: planFor(users.suffix(4)))
        let second = try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 16)
        XCTAssertTrue(Set(second.map(\.partition)).isSuperset(of: users.suffix(8).map { "s:" + $0 }),
                      "the users waiting since the first commit go before the ones written again meanwhile: \(second.map(\.partition))")
        XCTAssertEqual(Array(second.prefix(8).map(\.partition)), users.suffix(8).map { "s:" + $0 },
                       "a claim comes in its order, longest waiting first")

        _ = try write(store, ["d"], deliveries: { _, results in [DeliveryRequest(webhook: "r", list: "l", version: results[0].sequence)] })
        let failing = try XCTUnwrap(try store.claimDeliveries(webhooks: ["r"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 1).first)
        try store.deliveryFailed(failing, owner: "a", retryAt: 2_000)
        _ = try write(store, ["e"], deliveries: { _, results in [DeliveryRequest(webhook: "r", list: "m", version: results[0].sequence)] })
        let retried = try store.claimDeliveries(webhooks: ["r"], now: 2_000, claimUntil: 9_000, owner: "a", limit: 1)
        XCTAssertEqual(retried.map(\.list), ["l"], "the retried row has waited longer than the one recorded after it")
    }

    func checkAReleasedDeliveryKeepsItsAttemptsAndIsDueAsItWas() throws {
        let store = try makeStore()
        _ = try write(store, ["a"], deliveries: { _, results in [DeliveryRequest(webhook: "h", list: "l", version: results[0].sequence)] })
        let claimed = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 1_000, claimUntil: 9_000, owner: "a", limit: 10).first)
        try store.deliveryFailed(claimed, owner: "a", retryAt: 2_000)
        let again = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 2_000, claimUntil: 9_000, owner: "a", limit: 10).first)
        try store.deliveryReleased(again, owner: "b")
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]).nextDue, 9_000, "a release by a worker that lost the claim changes nothing")
        try store.deliveryReleased(again, owner: "a")
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h"]), OutboxStatus(pending: 1, nextDue: 2_000), "due as it was")
        let released = try XCTUnwrap(try store.claimDeliveries(webhooks: ["h"], now: 2_000, claimUntil: 9_000, owner: "c", limit: 10).first)
        XCTAssertEqual(released.attempts, 1, "a release is not a failed attempt")
    }

    func checkDeliveriesOfRemovedWebhooksAreDropped() throws {
        let store = try makeStore()
        _ = try write(store, ["a"], deliveries: { _, results in
            [DeliveryRequest(webhook: "kept", list: "l", version: results[0].sequence),
             DeliveryRequest(webhook: "kept", list: "m", partition: "s:ann", user: #""ann""#, version: results[0].sequence),
             DeliveryRequest(webhook: "kept", list: "unfollowed", version: results[0].sequence),
             DeliveryRequest(webhook: "gone", list: "l", version: results[0].sequence)]
        })
        XCTAssertEqual(try store.dropDeliveries(except: ["kept": ["l", "m"], "other": ["unfollowed"]]), 2,
                       "the removed webhook's row, and the row of a list the kept one no longer follows")
        XCTAssertEqual(try store.outboxStatus(webhooks: ["kept", "gone"]).pending, 2)
        XCTAssertEqual(try store.dropDeliveries(except: ["kept": ["m"]]), 1)
        XCTAssertEqual(try store.dropDeliveries(except: [:]), 1)
        XCTAssertEqual(try store.outboxStatus(webhooks: ["kept"]).pending, 0)
    }
}

extension RecordStoreContract {
    /// A change of definitions records the deliveries it is given at its number, in its own
    /// commit (a row per webhook and list); none for a change that stores nothing, and none for
    /// a list a served change finds recorded already.
    func checkDefinitionChangesRecordTheirDeliveries() throws {
        let store = try makeStore()
        func claim(_ webhooks: [String], at now: Int64) throws -> [PendingDelivery] {
            try store.claimDeliveries(webhooks: webhooks, now: now, claimUntil: now + 1_000, owner: "w", limit: 100)
        }
        let all = DefinitionDeliveries(list: "all", webhooks: ["h", "k"])
        let mine = DefinitionDeliveries(list: "mine", webhooks: ["h"])

        guard case .saved(let saved, _) = try store.saveDefinition(list: "all", json: Array(#"{"sections":[]}"#.utf8), expecting: .any,
                                                                   deliveries: all) else { return XCTFail("saved") }
        XCTAssertEqual(try claim(["h", "k"], at: 1_000).map { "\($0.webhook) \($0.list) \($0.partition) \($0.user ?? "-") \($0.version)" }.sorted(),
                       ["h all  - \(saved.sequence)", "k all  - \(saved.sequence)"])
        XCTAssertEqual(try store.saveDefinition(list: "all", json: nil, expecting: .oneOf([nil]), deliveries: all), .failed)
        XCTAssertEqual(try store.saveDefinition(list: "gone", json: nil, expecting: .any, deliveries: all), .nothingToRemove)
        XCTAssertEqual(try store.outboxStatus(webhooks: ["h", "k"]).pending, 2, "a change that stores nothing records nothing")

        let taken = try store.takeSequence(deliveries: [mine])
        XCTAssertEqual(try claim(["h"], at: 1_000).map { "\($0.list) \($0.version)" }, ["mine \(taken)"])

        let first = try store.recordServedChange(["all": 1, "mine": 2], deliveries: [all, mine])
        let second = try store.recordServedChange(["all": 1, "mine": 3], deliveries: [all, mine])
        let (was, moved) = (try XCTUnwrap(first["all"]?.sequence), try XCTUnwrap(second["mine"]?.sequence))
        XCTAssertEqual(second["all"]?.sequence, was, "recorded already: not moved")
        XCTAssertGreaterThan(moved, was)
        // Claimed once the claims above have run out.
        XCTAssertEqual(try claim(["h"], at: 2_000).map { "\($0.list) \($0.version)" }.sorted(), ["all \(was)", "mine \(moved)"])
    }
}
