"""Events and webhooks: what happened in an enterprise's memory, for integrators (docs/events.md).

a service's write ──(same transaction)──> event_record ──> Event row (the outbox; the pull feed reads it)
                                               └─ endpoints listening? ──> one events.dispatch job
events.dispatch ──> per new event and matching endpoint: a WebhookDelivery + an events.deliver job
events.deliver  ──> signed POST (Standard Webhooks) ──> 2xx: delivered
                                                    └─> else: retried with back-off; given up after
                                                        WEBHOOK_MAX_ATTEMPTS; an endpoint failing
                                                        WEBHOOK_DISABLE_AFTER deliveries in a row is
                                                        disabled and its enterprise's admins told
"""
