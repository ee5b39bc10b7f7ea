print("push-inspect")
