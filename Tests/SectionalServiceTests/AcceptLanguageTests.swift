import XCTest
@testable import SectionalService

/// `AcceptLanguage.choose`, the byte-wise reading of `Accept-Language` every read of a list in
/// several languages makes (the HTTP-level behaviour is in `LanguageTests`).
final class AcceptLanguageTests: XCTestCase {
    private let shop = ["en", "de", "fr", "es", "ja"]

    private func check(_ cases: [(String?, String)], among available: [String], file: StaticString = #filePath, line: UInt = #line) {
        for (header, want) in cases {
            XCTAssertEqual(AcceptLanguage.choose(header, among: available), want, "\(header.debugDescription) among \(available)",
                           file: file, line: line)
        }
    }

    func testCommonFormsAndWeights() {
        check([(nil, "en"), ("", "en"), ("de", "de"), ("de-DE", "de"), ("de-DE,de;q=0.9,en;q=0.8", "de"), ("DE-de", "de"),
               ("fr;q=0.5, de;q=0.7", "de"), ("fr;Q=0.5, de;q=0.3", "fr"), ("it, es;q=0.1", "es"), ("it", "en"),
               ("de;q=0.5, fr;q=0.5", "de"), ("fr;q=0.5, de;q=0.5", "fr"), ("de;q=0, fr", "fr"), ("de;q=1.0", "de"),
               ("  de  ;  q = 0.8 , ja ; q=0.9", "ja"), ("\tfr\t", "fr"), ("de;level=1;q=0.4, es;q=0.3", "de"),
               ("de;q=0.2;q=0.9, ja;q=0.5", "de")], among: shop)
    }

    func testLookupShortensRangesBySubtag() {
        check([("zh-Hant-TW, ja-JP;q=0.9", "ja"), ("de-CH-1996", "de"), ("fr-x-private", "fr"), ("es-419", "es")], among: shop)
        check([("zh-Hant-TW", "zh-Hant"), ("zh-Hant", "zh-Hant"), ("zh", "en"), ("de-x-y-z", "en"), ("de-x-y", "de-x-y"),
               ("de-x", "en"), ("de-a-b", "en")], among: ["en", "zh-Hant", "de-x-y"])
        check([("de-CH", "de-CH"), ("de-ch", "de-CH"), ("de-AT", "de"), ("de", "de")], among: ["en", "de-CH", "de"])
    }

    /// `*` never picks a language of its own; the first language stands.
    func testTheWildcardAndNothingMatchingGiveTheFirstLanguage() {
        check([("*", "en"), ("*, de;q=0.5", "de"), ("*;q=0.5, fr;q=0.1", "fr"), ("it, pt", "en")], among: shop)
        check([("*", "de"), ("en", "en")], among: ["de", "en"])
        XCTAssertEqual(AcceptLanguage.choose("fr", among: ["de"]), "de", "one language: no choice")
        XCTAssertEqual(AcceptLanguage.choose("fr", among: []), "en")
    }

    /// Items without a range are skipped; a `q` that is no number from 0 to 1 weighs 0 (`q=2` and
    /// `q=inf` outweighed every lawful weight); other parameters and
    /// a `q` without a value leave the weight at 1.
    func testMalformedItems() {
        check([(";", "en"), (" ; ", "en"), (",;,", "en"), (";q=1", "en"), ("de;", "de"), (";;de", "en"), ("=,;q=", "en"),
               ("de;q=x", "en"), ("de;q=", "de"), ("de;q= ", "en"), ("de;=q=0.5, fr;q=0.6", "fr"), ("de;q==1", "en"),
               (",,de,,", "de"), ("de;q=nan", "en"), ("de;q=-1, fr;q=0.1", "fr"), ("de;qq=0", "de"), ("de;q", "de"),
               ("-", "en"), ("-de", "en"), ("de-", "de"), ("d\u{E9}, fr;q=0.1", "fr"), ("\u{A0}de", "en"),
               ("de;q=0.5, fr;q=inf", "de"), ("de;q=0.5, fr;q=2", "de"), ("de;q=0.5, fr;q=1e400", "de"), ("de;q=0.5, fr;q=1.001", "de"),
               ("de;q=0.5, fr;q=1e-1", "de"), ("de;q=0.05, fr;q=1e-1", "fr")], among: shop)
    }
}
