import asyncio, os, ssl
from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsProductionClientProtocol

# aioapns has no host or port argument: both are class attributes of its protocol classes.
APNsProductionClientProtocol.APNS_SERVER = "localhost"
APNsProductionClientProtocol.APNS_PORT = int(os.environ.get("APNS_MOCK_PORT", "2197"))

async def main():
    apns = APNs(key=open("certs/AuthKey_ABC123DEFG.p8").read(), key_id="ABC123DEFG", team_id="TEAM000001",
                topic="com.example.app", ssl_context=ssl.create_default_context(cafile="certs/ca.pem"))
    result = await apns.send_notification(NotificationRequest(
        device_token="ab" * 32, message={"aps": {"alert": "hello from aioapns"}}, push_type=PushType.ALERT))
    print(result.status, result.notification_id)

asyncio.run(main())
