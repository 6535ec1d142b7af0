import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';

/**
 * A partner's webhook receiver on loopback for the soak: answers 200 at once, verifies
 * each delivery's Standard Webhooks signature with the endpoint's secret and keeps the
 * event ids it received, so the soak can check that every event arrived, once verified.
 */
export class WebhookReceiver {
  private verifier?: Webhook;
  private readonly events = new Set<string>();
  private minute = { received: 0, badSignatures: 0 };
  private duplicates = 0;

  private readonly server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      this.receive(Buffer.concat(chunks).toString('utf8'), request.headers as Record<string, string>);
      response.writeHead(200).end();
    });
  });
  /** Where the receiver listens (set once it does). */
  url = '';

  private constructor() {}

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as { port: number }).port}/hooks`;
    return receiver;
  }

  /** The endpoint's signing secret, as its registration answered it. */
  useSecret(secret: string): void {
    this.verifier = new Webhook(secret);
  }

  /** Deliveries received and signatures refused since the last call. */
  takeMinute(): { received: number; badSignatures: number } {
    const minute = this.minute;
    this.minute = { received: 0, badSignatures: 0 };
    return minute;
  }

  /** Distinct events received with a valid signature, and deliveries of an event already received (retries). */
  totals(): { events: number; duplicates: number } {
    return { events: this.events.size, duplicates: this.duplicates };
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(body: string, headers: Record<string, string>): void {
    this.minute.received += 1;
    try {
      if (!this.verifier) throw new Error('no secret yet');
      this.verifier.verify(body, headers);
    } catch {
      this.minute.badSignatures += 1;
      return;
    }
    const id = headers['webhook-id'];
    if (this.events.has(id)) this.duplicates += 1;
    this.events.add(id);
  }
}
