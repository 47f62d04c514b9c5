/// The ASCII bytes the JSON writers splice in by hand.
enum ASCII {
    /// `"`
    static let quote = UInt8(ascii: "\"")
    /// `,`
    static let comma = UInt8(ascii: ",")
    /// `_`
    static let underscore = UInt8(ascii: "_")
    /// `}`
    static let closeBrace = UInt8(ascii: "}")
}
