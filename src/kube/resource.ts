// Typed access to one resource type over the shared KubeClient: paginated lists (full or
// metadata-only), watches that satisfy the controller runtime's ListWatch contract, and CRUD.
import type { KubeClient } from './client.js';
import type { RequestOptions } from './request-options.js';
import { KubeApiError } from './errors.js';

export type { ObjectMetadata } from './object-metadata.js';

// The list and watch shapes of the apiserver's collection API. The controller runtime's
// ListWatch port (src/controllers/runtime/informer.ts) is written in them, and a Resource
// satisfies it structurally: src/kube imports nothing else of the project.
export interface ListOptions {
  /** Unset: a consistent (quorum) read, which is what a relist after 410 needs. */
  resourceVersion?: string;
  /** Page size; the apiserver may return fewer items and a continue token. */
  limit?: number;
  /** The token from the previous page. */
  continue?: string;
  labelSelector?: string;
  /** e.g. `spec.package=foo` (CRD selectableFields); ANDed with labelSelector. */
  fieldSelector?: string;
}

export interface ListPage<T> {
  items: T[];
  /** The collection's resourceVersion (from the first page when paginating). */
  resourceVersion: string;
  /** Set when there are more pages. */
  continue?: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchOptions {
  resourceVersion: string;
  labelSelector?: string;
  fieldSelector?: string;
  allowWatchBookmarks: boolean;
  /** Server-side watch timeout; randomized per watch so replicas do not re-watch together. */
  timeoutSeconds: number;
}

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  /** Set for namespaced resources. */
  namespace?: string;
}

/**
 * The field manager of every write: lets the sync tell its own fields from hand edits
 * (metadata.managedFields) whatever the HTTP user agent.
 */
export const FIELD_MANAGER = 'catalogd-ts';

const METADATA_LIST =
  'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_ONE =
  'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';
/**
 * A metadata-only watch in protobuf first: an apiserver that cannot serve it (an aggregated API)
 * answers in JSON, which the client reads as well (client.ts's watchEvents).
 */
const METADATA_WATCH_PROTOBUF = `application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,${METADATA_ONE}`;

/**
 * Options of a write whose response is not read. It still asks for metadata only, so the
 * apiserver encodes and sends the object's metadata, not the whole object: for the objects of a
 * generated 30 MB catalog, 1.1 kB instead of 6.0 kB per response, and less client CPU per write
 * (bench/README, stop 20). Error responses (Status) are unaffected.
 */
const QUIET = { discardResponse: true, accept: METADATA_ONE } as const;

/** Options of a write. */
export interface WriteOptions {
  /** Server-side dry-run (`?dryRun=All`): admission and validation run, nothing is stored. */
  dryRun?: boolean;
  /** Called with what each attempt was answered (request-options.ts's ResponseInfo). */
  onResponse?: RequestOptions['onResponse'];
}

const dryRunQuery = (opts?: WriteOptions) => (opts?.dryRun ? { dryRun: 'All' } : {});
const observed = (opts?: WriteOptions) => (opts?.onResponse ? { onResponse: opts.onResponse } : {});

interface ListBody<T> {
  items?: T[];
  metadata?: { resourceVersion?: string; continue?: string };
}

interface WatchEvent<T> {
  type: WatchEventType | 'ERROR';
  object: T & { code?: number; message?: string; reason?: string };
}

export interface ResourceOptions {
  /** Request metadata-only representations for list and watch. */
  metadataOnly?: boolean;
  /**
   * With metadataOnly: watch in protobuf (metadata-protobuf.ts), which costs the apiserver less
   * per event than JSON; the events' managedFields entries then carry no fieldsV1.
   */
  protobufWatch?: boolean;
}

export class Resource<T extends { metadata?: { name?: string } }> {
  private readonly metadataOnly: boolean;
  private readonly watchAccept: string | undefined;

  constructor(
    private readonly client: KubeClient,
    readonly type: ResourceType,
    opts: ResourceOptions = {},
  ) {
    this.metadataOnly = opts.metadataOnly ?? false;
    this.watchAccept = !this.metadataOnly
      ? undefined
      : opts.protobufWatch
        ? METADATA_WATCH_PROTOBUF
        : METADATA_ONE;
  }

  private get base(): string {
    const { group, version, plural, namespace } = this.type;
    const prefix = group === '' ? `/api/${version}` : `/apis/${group}/${version}`;
    return namespace ? `${prefix}/namespaces/${namespace}/${plural}` : `${prefix}/${plural}`;
  }

  private path(name?: string, sub?: string): string {
    let p = this.base;
    if (name !== undefined) p += `/${encodeURIComponent(name)}`;
    if (sub !== undefined) p += `/${sub}`;
    return p;
  }

  /** One page of a list. */
  async list(opts: ListOptions, signal?: AbortSignal): Promise<ListPage<T>> {
    const body = await this.client.request<ListBody<T>>(this.path(), {
      verb: 'list',
      resource: this.type.plural,
      query: {
        limit: opts.limit,
        continue: opts.continue,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        resourceVersion: opts.resourceVersion,
      },
      ...(this.metadataOnly && { accept: METADATA_LIST }),
      ...(signal && { signal }),
    });
    return {
      items: body.items ?? [],
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(body.metadata?.continue && { continue: body.metadata.continue }),
    };
  }

  /** Every item matching the selectors, page by page (yielded as they arrive). */
  async *listAll(
    labelSelector: string | undefined,
    pageSize = 500,
    signal?: AbortSignal,
    fieldSelector?: string,
  ): AsyncGenerator<T> {
    let cont: string | undefined;
    do {
      const page = await this.list(
        {
          limit: pageSize,
          ...(cont && { continue: cont }),
          ...(labelSelector && { labelSelector }),
          ...(fieldSelector && { fieldSelector }),
        },
        signal,
      );
      yield* page.items;
      cont = page.continue;
    } while (cont);
  }

  async watch(
    opts: WatchOptions,
    onEvent: (type: WatchEventType, obj: T) => void,
    signal: AbortSignal,
  ): Promise<void> {
    await this.client.watchEvents(
      this.path(),
      {
        verb: 'watch',
        resource: this.type.plural,
        query: {
          watch: 1,
          allowWatchBookmarks: true,
          resourceVersion: opts.resourceVersion,
          labelSelector: opts.labelSelector,
          fieldSelector: opts.fieldSelector,
          timeoutSeconds: opts.timeoutSeconds ?? 300 + Math.floor(Math.random() * 300),
        },
        ...(this.watchAccept !== undefined && { accept: this.watchAccept }),
        signal,
      },
      (line) => {
        const ev = line as WatchEvent<T>;
        if (ev.type === 'ERROR') {
          // A 410 Status (expired resourceVersion) becomes an error whose code is 410, which
          // kube's isGone() recognizes.
          throw new KubeApiError(
            ev.object.code ?? 500,
            ev.object.reason ?? (ev.object.code === 410 ? 'Expired' : ''),
            ev.object.message ??
              (ev.object.code === 410 ? 'resource version expired' : 'watch error'),
            'watch',
            this.type.plural,
          );
        }
        onEvent(ev.type, ev.object);
      },
    );
  }

  /** This resource's list and watch alone (the controller runtime's ListWatch port). */
  listWatch(): Pick<Resource<T>, 'list' | 'watch'> {
    return {
      list: (opts, signal) => this.list(opts, signal),
      watch: (opts, onEvent, signal) => this.watch(opts, onEvent, signal),
    };
  }

  get(name: string, signal?: AbortSignal): Promise<T> {
    return this.client.request<T>(this.path(name), {
      verb: 'get',
      resource: this.type.plural,
      ...(signal && { signal }),
    });
  }

  create(obj: T, signal?: AbortSignal): Promise<T> {
    return this.client.request<T>(this.path(), this.writeOptions('POST', obj, signal));
  }

  /**
   * create without reading the response (a sync's bulk writes). An object already serialized as
   * JSON (Buffer or string) is sent as is.
   */
  async createQuietly(
    obj: T | Buffer | string,
    signal?: AbortSignal,
    opts?: WriteOptions,
  ): Promise<void> {
    await this.writeQuietly(this.path(), this.writeOptions('POST', obj, signal), opts);
  }

  /** PUT; the object's metadata.resourceVersion, when set, makes it conditional. */
  update(obj: T, signal?: AbortSignal): Promise<T> {
    return this.client.request<T>(
      this.path(obj.metadata?.name ?? ''),
      this.writeOptions('PUT', obj, signal),
    );
  }

  /**
   * update of the named object without reading the response. An object already serialized as
   * JSON (Buffer or string) is sent as is; its metadata.resourceVersion makes it conditional.
   */
  async updateQuietly(
    name: string,
    obj: T | Buffer | string,
    signal?: AbortSignal,
    opts?: WriteOptions,
  ): Promise<void> {
    await this.writeQuietly(this.path(name), this.writeOptions('PUT', obj, signal), opts);
  }

  /** PUT of the status subresource. */
  updateStatus(obj: T, signal?: AbortSignal): Promise<T> {
    return this.client.request<T>(
      this.path(obj.metadata?.name ?? '', 'status'),
      this.writeOptions('PUT', obj, signal, 'status'),
    );
  }

  /** The options of a create (POST) or an update (PUT) of the object or one of its subresources. */
  private writeOptions(
    method: 'POST' | 'PUT',
    obj: T | Buffer | string,
    signal?: AbortSignal,
    sub?: string,
  ): RequestOptions {
    return {
      method,
      query: { fieldManager: FIELD_MANAGER },
      verb: method === 'POST' ? 'create' : 'update',
      resource: sub ? `${this.type.plural}/${sub}` : this.type.plural,
      body: obj,
      ...(signal && { signal }),
    };
  }

  /** A write's request without reading the response (QUIET), with the dry-run and observer of opts. */
  private async writeQuietly(
    path: string,
    options: RequestOptions,
    opts?: WriteOptions,
  ): Promise<void> {
    await this.client.request(path, {
      ...options,
      query: { ...options.query, ...dryRunQuery(opts) },
      ...QUIET,
      ...observed(opts),
    });
  }

  /** A JSON merge patch (RFC 7386) of the object or a subresource. */
  mergePatch(name: string, patch: unknown, sub?: string, signal?: AbortSignal): Promise<T> {
    return this.client.request<T>(this.path(name, sub), {
      method: 'PATCH',
      query: { fieldManager: FIELD_MANAGER },
      verb: 'patch',
      resource: sub ? `${this.type.plural}/${sub}` : this.type.plural,
      body: patch,
      contentType: 'application/merge-patch+json',
      ...(signal && { signal }),
    });
  }

  /** DELETE, with optional preconditions so we never delete an object someone re-created. */
  async delete(
    name: string,
    preconditions?: { uid?: string; resourceVersion?: string },
    signal?: AbortSignal,
    opts?: Pick<WriteOptions, 'onResponse'>,
  ): Promise<void> {
    await this.client.request(this.path(name), {
      method: 'DELETE',
      ...QUIET,
      ...observed(opts),
      verb: 'delete',
      resource: this.type.plural,
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Background',
        ...(preconditions && { preconditions }),
      },
      ...(signal && { signal }),
    });
  }
}
