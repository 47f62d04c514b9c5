import TestSupport
import XCTest
@testable import SectionalService

/// The contiguous folded texts of a search corpus find exactly the owners whose text contains a
/// needle, through rewrites, removals and compactions.
final class FoldedTextsTests: XCTestCase {
    func testOwnersFoundAreThoseWhoseTextContainsTheNeedle() {
        var random = SplitMix64.replayable("FoldedTextsTests")
        var texts = FoldedTexts()
        var oracle: [Int: [UInt8]] = [:]
        // Few letters (and the byte that ends each text in the buffer): many matches, many spanning
        // two texts, texts that are prefixes of others.
        let alphabet = Array("abc\u{1F}\u{0}".utf8)
        func word(_ length: Int) -> [UInt8] { (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] } }
        for step in 0..<3_000 {
            let owner = Int(random.next() % 200)
            if random.next() % 5 == 0 {
                texts.set(owner, to: nil)
                oracle[owner] = nil
            } else {
                let text = word(Int(random.next() % 12))
                texts.set(owner, to: text)
                oracle[owner] = text
            }
            guard step % 25 == 0 else { continue }
            for length in 1...4 {
                let needle = word(length)
                var found: [Int] = []
                texts.forEachOwner(containing: needle) { found.append($0) }
                let expected = oracle.filter { Self.contains($0.value, needle) }.keys.sorted()
                XCTAssertEqual(found.sorted(), expected, "step \(step), needle \(needle)")
                XCTAssertEqual(Set(found).count, found.count, "step \(step): an owner found twice")
            }
        }
    }

    private static func contains(_ text: [UInt8], _ needle: [UInt8]) -> Bool {
        guard text.count >= needle.count else { return false }
        return (0...(text.count - needle.count)).contains { Array(text[$0..<($0 + needle.count)]) == needle }
    }
}
