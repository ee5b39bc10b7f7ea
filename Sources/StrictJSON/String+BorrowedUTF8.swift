extension String {
    /// Calls `body` with the string's UTF-8 bytes, borrowing the string.
    ///
    /// `withUTF8` is mutating, so a caller holding a `let` copies the string into a `var`
    /// first, which costs a retain and a release; the text writers do that for every field
    /// of every capture line. A native string's bytes are contiguous and are read in place
    /// (a small string's from a stack copy); any other string is copied once.
    ///
    /// ```swift
    /// let count = "apns-id".withBorrowedUTF8 { $0.count }  // 7
    /// ```
    @inlinable @inline(__always)
    public func withBorrowedUTF8<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }
}
