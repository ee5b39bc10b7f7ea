// Filled by the JWTVerify work.
