import Foundation
import ListModel
import Locking

/// Languages for the lists: the locale data their formatters write with (from Foundation's ICU
/// data, worked out once per language and kept). A request's language is ``AcceptLanguage``'s choice.
enum Localization {
    /// Currencies whose symbol each language's data names (others are written with their code).
    static let currencyCodes = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "CNY", "INR", "KRW", "MXN", "BRL",
                                "HKD", "ILS", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "TRY", "RUB", "ZAR", "SGD", "TWD"]

    private static let cache = Locked<[String: LocaleFormats]>([:])

    /// How `language` writes numbers, amounts and dates. English (`en`, `en-US`) is the built-in
    /// ``LocaleFormats/english``, the other languages come from the platform's locale data.
    static func formats(for language: String) -> LocaleFormats {
        let key = language.lowercased()
        if key == "en" || key == "en-us" { return .english }
        if let known = cache.withLock({ $0[key] }) { return known }
        let built = build(language)
        cache.withLock { $0[key] = built }
        return built
    }

    /// `definition` as served by default: in its first language (English definitions as they are).
    static func base(_ definition: ListDefinition) -> ListDefinition {
        guard let first = definition.languages.first, first != definition.language || formats(for: first) != .english else {
            return definition
        }
        return definition.localized(first, formats: formats(for: first))
    }

    private static func build(_ language: String) -> LocaleFormats {
        let locale = Locale(identifier: language.replacingOccurrences(of: "-", with: "_"))
        let decimal = NumberFormatter()
        decimal.locale = locale
        decimal.numberStyle = .decimal
        let decimalMark = decimal.decimalSeparator ?? "."
        let groupingMark = decimal.groupingSeparator ?? ","
        let grouped = decimal.string(from: 1234)?.contains(groupingMark) ?? true
        var currencies: [String: LocaleFormats.Currency] = [:]
        var codeBefore = true
        for code in currencyCodes {
            let money = NumberFormatter()
            money.locale = locale
            money.numberStyle = .currency
            money.currencyCode = code
            // Where the symbol goes around the amount: the amount as the language writes it with
            // the currency's digits, or with none — Foundation on Linux reports two for every
            // currency before it formats, while it writes yen and won with none.
            let digits = decimal.copy() as? NumberFormatter ?? decimal
            digits.minimumFractionDigits = money.minimumFractionDigits
            digits.maximumFractionDigits = money.maximumFractionDigits
            let whole = money.string(from: 1234) ?? ""
            let bodies = [digits.string(from: 1234), decimal.string(from: 1234)].compactMap { $0 }
            guard let range = bodies.lazy.compactMap({ whole.range(of: $0) }).first else { continue }
            let placement = LocaleFormats.Currency(prefix: String(whole[..<range.lowerBound]), suffix: String(whole[range.upperBound...]))
            currencies[code] = placement
            if code == "EUR" { codeBefore = !placement.prefix.isEmpty }
        }
        let dates = DateFormatter()
        dates.locale = locale
        // The names of the Gregorian months, which the `date` formatter writes: a locale's own
        // calendar may be another (Persian for `fa`, Islamic for `ar-SA`), whose first month is not January.
        dates.calendar = Calendar(identifier: .gregorian)
        return LocaleFormats(decimalSeparator: decimalMark, groupingSeparator: groupingMark, minimumGroupingDigits: grouped ? 1 : 2,
                             currencies: currencies, codeBeforeAmount: codeBefore, months: dates.monthSymbols,
                             shortMonths: dates.shortMonthSymbols, weekdays: dates.weekdaySymbols, shortWeekdays: dates.shortWeekdaySymbols,
                             am: dates.amSymbol, pm: dates.pmSymbol)
    }
}
