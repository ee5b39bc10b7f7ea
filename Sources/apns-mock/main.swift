print("apns-mock")
