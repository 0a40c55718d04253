import { Type } from '@sinclair/typebox';
import { sendDocument } from '../reply.js';
import { IdParam, NullableString } from '../schemas.js';
import { taskResultResource } from '../serializers/task-stages.serializer.js';
import type { TypedApp } from '../typed-app.js';
import { proofOf } from '../find-and-authorize.js';
import type { Services } from '../../services.js';
import type { CallbackInput } from '../../delivery/callbacks.service.js';

const Tag = Type.Object({ label: Type.String({ maxLength: 1000 }), level: Type.Optional(Type.String({ maxLength: 50 })) });

const Outcome = Type.Object({
  type: Type.Optional(Type.String({ maxLength: 100 })),
  attributes: Type.Object({
    'outcome-id': Type.String({ minLength: 1, maxLength: 255 }),
    description: Type.String({ maxLength: 10_000 }),
    body: NullableString(100_000),
    url: NullableString(2048),
    tags: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Type.Array(Tag, { maxItems: 100 }))),
  }),
});

/** A `task-results` document; `status` decides, everything else is optional. */
const CallbackBody = Type.Object({
  data: Type.Object({
    type: Type.Literal('task-results'),
    attributes: Type.Object({
      status: Type.Union([Type.Literal('running'), Type.Literal('passed'), Type.Literal('failed')]),
      message: NullableString(100_000),
      url: NullableString(2048),
    }),
    relationships: Type.Optional(
      Type.Object({ outcomes: Type.Optional(Type.Object({ data: Type.Array(Outcome, { maxItems: 1000 }) })) }),
    ),
  }),
});


/** The run task callback. Public: it authenticates with the per-result access token, not an API token. */
export async function callbacksRoutes(app: TypedApp, services: Services): Promise<void> {
  const { taskCallbacks } = services;
  app.patch(
    '/task-results/:task_result_id/callback',
    {
      // 404 / 401 / 409 are decided by the token and the result, before a byte of the body is read.
      config: { public: true, lookup: 'task-result-callback' },
      schema: { params: IdParam('task_result_id'), body: CallbackBody, tags: ['task-stages'], summary: 'Report a task result (run task callback)' },
    },
    async (request, reply) => {
      const { attributes, relationships } = request.body.data;
      const input: CallbackInput = { status: attributes.status };
      if (attributes.message !== undefined) input.message = attributes.message;
      if (attributes.url !== undefined) input.url = attributes.url;
      if (relationships?.outcomes) input.outcomes = relationships.outcomes.data.map((outcome) => outcome.attributes);
      const result = await taskCallbacks.callback(proofOf(request, 'task-result-callback'), input);
      return sendDocument(reply, 200, { data: taskResultResource(result) });
    },
  );
}
