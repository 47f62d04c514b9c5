/// How one language writes numbers, amounts and dates: the data the `number`, `currency` and
/// `date` formatters follow. A plain value — the caller fills it (from the platform's locale
/// data, say); ``english`` is built in and is what a definition decodes with by default.
public struct LocaleFormats: Sendable, Equatable {
    /// How an amount in one currency is written around its digits: `prefix` + digits + `suffix`
    /// (`"$"` + `"1,234.50"`, `""` + `"1.234,50"` + `"\u{A0}€"`).
    public struct Currency: Sendable, Equatable {
        /// Written before the digits (after a minus sign).
        public var prefix: String
        /// Written after the digits.
        public var suffix: String

        /// A placement of a currency's symbol.
        public init(prefix: String, suffix: String) {
            self.prefix = prefix
            self.suffix = suffix
        }
    }

    /// Between the integer and the fraction digits.
    public var decimalSeparator: String
    /// Between groups of three integer digits.
    public var groupingSeparator: String
    /// Digits the integer part needs beyond the first group before it is grouped at all (1:
    /// `1,234`; 2: `1234` but `12.345`, as Spanish writes).
    public var minimumGroupingDigits: Int
    /// Per ISO 4217 code, how amounts are written.
    public var currencies: [String: Currency]
    /// For codes not in ``currencies``: the code itself, written where this language writes a
    /// symbol: before the digits (`"CHF 12.00"`) or after them (`"12,00 CHF"`).
    public var codeBeforeAmount: Bool
    /// Twelve month names, January first: wide (`MMMM`) and abbreviated (`MMM`).
    public var months: [String]
    /// Twelve abbreviated month names (`MMM`).
    public var shortMonths: [String]
    /// Seven weekday names, Sunday first: wide (`EEEE`) and abbreviated (`E`…`EEE`).
    public var weekdays: [String]
    /// Seven abbreviated weekday names (`E`…`EEE`).
    public var shortWeekdays: [String]
    /// `a`: before and after noon.
    public var am: String
    /// `a` after noon.
    public var pm: String

    /// Locale data; arrays of the wrong length fall back to English names.
    public init(decimalSeparator: String, groupingSeparator: String, minimumGroupingDigits: Int = 1,
                currencies: [String: Currency], codeBeforeAmount: Bool, months: [String], shortMonths: [String],
                weekdays: [String], shortWeekdays: [String], am: String, pm: String) {
        self.decimalSeparator = decimalSeparator
        self.groupingSeparator = groupingSeparator
        self.minimumGroupingDigits = max(1, minimumGroupingDigits)
        self.currencies = currencies
        self.codeBeforeAmount = codeBeforeAmount
        self.months = months.count == 12 ? months : LocaleFormats.englishMonths
        self.shortMonths = shortMonths.count == 12 ? shortMonths : self.months.map { String($0.prefix(3)) }
        self.weekdays = weekdays.count == 7 ? weekdays : LocaleFormats.englishWeekdays
        self.shortWeekdays = shortWeekdays.count == 7 ? shortWeekdays : self.weekdays.map { String($0.prefix(3)) }
        self.am = am
        self.pm = pm
    }

    static let englishMonths = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                "October", "November", "December"]
    static let englishWeekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// The symbols `en_US` writes before amounts.
    static let englishSymbols: [String: String] = [
        "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CAD": "CA$", "AUD": "A$", "NZD": "NZ$",
        "CNY": "CN¥", "INR": "₹", "KRW": "₩", "MXN": "MX$", "BRL": "R$", "HKD": "HK$", "ILS": "₪",
        "VND": "₫", "TWD": "NT$", "PHP": "₱", "XAF": "FCFA", "XOF": "F\u{202F}CFA",
    ]

    /// `en_US`: `1,234.5`, `$1,234.50`, `March`, `Wed`, `AM`.
    public static let english = LocaleFormats(
        decimalSeparator: ".", groupingSeparator: ",", currencies: englishSymbols.mapValues { Currency(prefix: $0, suffix: "") },
        codeBeforeAmount: true, months: englishMonths, shortMonths: englishMonths.map { String($0.prefix(3)) },
        weekdays: englishWeekdays, shortWeekdays: englishWeekdays.map { String($0.prefix(3)) }, am: "AM", pm: "PM")

    /// How amounts in `code` are written.
    func currency(_ code: String) -> Currency {
        if let known = currencies[code] { return known }
        return codeBeforeAmount ? Currency(prefix: code + " ", suffix: "") : Currency(prefix: "", suffix: "\u{A0}" + code)
    }
}
