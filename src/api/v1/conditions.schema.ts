// The metav1.Condition schema. Schemas live in *.schema.ts files, imported at run time only by
// the CRD generator (crds.ts): the controller needs the types, not TypeBox (loading it cost the
// controller about 6 MB of RSS).
import { Type } from '@sinclair/typebox';
import { CONDITION_STATUSES } from './conditions.js';
import { StringEnum, Timestamp } from './schema.js';

/** metav1.Condition, with the same schema and limits as every Kubernetes API. */
export const ConditionSchema = Type.Object(
  {
    type: Type.String({
      description: 'type of condition in CamelCase or in foo.example.com/CamelCase.',
      maxLength: 316,
      pattern:
        '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    }),
    status: StringEnum(CONDITION_STATUSES, {
      description: 'status of the condition, one of True, False, Unknown.',
    }),
    observedGeneration: Type.Optional(
      Type.Integer({
        description:
          'observedGeneration is the .metadata.generation that the condition was set based upon; a smaller value than metadata.generation means the condition is out of date.',
        format: 'int64',
        minimum: 0,
      }),
    ),
    lastTransitionTime: Timestamp({
      description:
        'lastTransitionTime is the last time the condition changed from one status to another.',
    }),
    reason: Type.String({
      description: 'reason is a CamelCase identifier of the cause of the last transition.',
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    }),
    message: Type.String({
      description:
        'message is a human readable, deterministic description of the condition. It may be empty.',
      maxLength: 32768,
    }),
  },
  {
    description:
      'Condition contains details for one aspect of the current state of this API Resource.',
  },
);
