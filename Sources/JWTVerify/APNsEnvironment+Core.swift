import APNsCore

/// The APNs environment a connection serves: APNsCore's, named here too so that code that
/// imports only JWTVerify keeps its spelling.
public typealias APNsEnvironment = APNsCore.APNsEnvironment
