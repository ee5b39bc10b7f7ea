/// The names of JSON's types in messages ("string", "integer", ...), spelled once for the
/// parsed tree, the shallow reading and the outline's scan.
enum JSONTypeName {
    static let null = "null"
    static let boolean = "boolean"
    static let integer = "integer"
    static let number = "number"
    static let string = "string"
    static let array = "array"
    static let object = "object"
}
